// The SDK routes' answers: the browser scripts (JavaScript) and the recorder's source map (JSON).
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';

/** A browser script, served as built. */
export const ScriptBody = z.string();

/** The recorder's source map, as esbuild writes it (source map revision 3): the fields it writes, no others. */
export class SourceMap extends createZodDto(
  z.object({
    version: z.literal(3),
    sources: z.array(z.string()).describe('Source files, relative to the map'),
    sourcesContent: z.array(z.string()).optional().describe('The source files themselves, in the order of sources'),
    names: z.array(z.string()),
    mappings: z.string().describe('Base64 VLQ mappings of recorder.js'),
  }),
) {}
