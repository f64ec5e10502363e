// Multipart bodies (@fastify/multipart, registered for the REST scope in src/server.ts) read into
// one plain object, so a multipart route validates its fields with a zod schema like a JSON body.
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';

/** A file part of a multipart request, read whole (its size is capped by MAX_BODY_BYTES). */
export interface UploadedFile {
  filename: string;
  content: Buffer;
}

/**
 * The fields of a multipart request, whatever their order: each file part read whole (its size is
 * capped by the multipart limits, 413 beyond), text fields as sent, blank ones left out as a
 * browser form sends untouched inputs. A request that is not multipart has no fields at all.
 */
export async function multipartFields(req: FastifyRequest): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  if (!req.isMultipart()) return fields;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        // Every file part is read to the end, or the parts after it would never arrive.
        const content = await part.toBuffer();
        // busboy leaves `filename` undefined when the part names none (`filename=""`).
        fields[part.fieldname] = { filename: part.filename ?? '', content } satisfies UploadedFile;
      } else if (!(typeof part.value === 'string' && part.value.trim() === '')) {
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    // The multipart errors that carry a status (413 limits, …) keep it; busboy's own errors
    // (no boundary, a part cut short) are a malformed body, not a fault of the server.
    if ((error as { statusCode?: number }).statusCode) throw error;
    throw ValidationError.at(['body'], `Invalid multipart/form-data body: ${(error as Error).message}`, 'value_error');
  }
  return fields;
}
