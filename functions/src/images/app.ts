// Serves the local image store's files (emulator machines without a Storage emulator).
import type { Request } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import { imageStore, LocalImageStore } from "./store";
import { svgEndpoint } from "./svgRoute";
import { printEndpoints } from "./printRoutes";

const ImageParams = z.object({ imagePath: z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "Must be an image path segment")).min(1).max(6) }).strict();
const ImageQuery = z.object({ token: z.string().max(200).default("") }).strict();

export const imagesApp = createRestApp((app) => {
  mountEndpoints(app, "images", [
    svgEndpoint,
    ...printEndpoints,
    endpoint({
      method: "GET",
      path: "/img/*imagePath",
      credential: "none",
      params: ImageParams,
      query: ImageQuery,
      async handle({ res, params, query }) {
        const store = imageStore();
        if (!(store instanceof LocalImageStore)) throw new AppError("NOT_FOUND", "Images are served by Cloud Storage here");
        const png = await store.read(params.imagePath.join("/"), query.token);
        res.set({ "Content-Type": "image/png", "Cache-Control": "public, max-age=300" }).send(png);
      },
    }),
  ]);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such image: ${req.path}`);
  });
}, { cors: "images" });
