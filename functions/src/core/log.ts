// Structured logs, one named function per event, so handlers read cleanly and nothing secret is logged.
import { logger } from "firebase-functions";

export function logError(message: string, error: unknown): void {
  logger.error(message, { error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) });
}

export function logWarn(message: string, fields: Record<string, unknown> = {}): void {
  logger.warn(message, fields);
}

export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  logger.info(message, fields);
}
