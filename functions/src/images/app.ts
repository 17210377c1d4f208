// Serves the local image store's files (emulator machines without a Storage emulator).
import type { Request } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import { imageStore, LocalImageStore } from "../store/images";
import { svgEndpoint } from "./svgRoute";
import { printEndpoints } from "./printRoutes";
import { TOKEN_EXAMPLE, tokenField } from "./codeFiles";

const ImageParams = z.object({ imagePath: z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "Must be an image path segment")).min(1).max(6) }).strict();
const ImageQuery = z.object({ token: tokenField }).strict();

export const imageRoutes = [
  svgEndpoint,
  ...printEndpoints,
  endpoint({
    method: "GET",
    path: "/img/*imagePath",
    summary: "A code's hosted PNG",
    credential: "none",
    params: ImageParams,
    query: ImageQuery,
    doc: {
      operationId: "getCodeImage",
      description:
        "The 512 px PNG of a code, at the `qrImageUrl` the API returns. Deployed, these URLs are answered by Cloud Storage; a machine without a Storage emulator serves them here from its local image store.",
      binary: "image/png",
      errors: ["NOT_FOUND", "FORBIDDEN"],
      example: { params: { imagePath: ["m_3f9a2c7d1e5b4a60", "Hk2Qm8ZpT1xVb4sLr9Ne.png"] }, query: { token: TOKEN_EXAMPLE } },
    },
    async handle({ res, params, query }) {
      const store = imageStore();
      if (!(store instanceof LocalImageStore)) throw new AppError("NOT_FOUND", "Images are served by Cloud Storage here");
      const file = params.imagePath.join("/");
      const bytes = await store.read(file, query.token);
      // A job's print package (jobs/service.ts) is the one other kind of file the store holds.
      if (file.endsWith(".zip")) res.set({ "Content-Type": "application/zip", "Content-Disposition": `attachment; filename="${params.imagePath.at(-1)}"`, "Cache-Control": "private, max-age=0" }).send(bytes);
      else res.set({ "Content-Type": "image/png", "Cache-Control": "public, max-age=300" }).send(bytes);
    },
  }),
];

export const imagesApp = createRestApp((app) => {
  mountEndpoints(app, "images", imageRoutes);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such image: ${req.path}`);
  });
}, { cors: "images" });
