// Serves the local image store's files (emulator machines without a Storage emulator).
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { createRestApp } from "../http/rest";
import { imageStore, LocalImageStore } from "./store";
import { registerSvgRoute } from "./svgRoute";

export const imagesApp = createRestApp((app) => {
  registerSvgRoute(app);
  app.get("/img/*imagePath", async (req: Request, res: Response) => {
    const store = imageStore();
    if (!(store instanceof LocalImageStore)) throw new AppError("NOT_FOUND", "Images are served by Cloud Storage here");
    const parts = (req.params as { imagePath?: string[] }).imagePath ?? [];
    const token = typeof req.query.token === "string" ? req.query.token : "";
    const png = await store.read(parts.join("/"), token);
    res.set({ "Content-Type": "image/png", "Cache-Control": "public, max-age=300" }).send(png);
  });
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such image: ${req.path}`);
  });
});
