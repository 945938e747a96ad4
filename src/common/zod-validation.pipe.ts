// Validates every handler parameter typed with a zod DTO (createZodDto) through parseWith, so a
// failure is the same JSON 400 as every other request-schema failure, worded as before. Path
// parameters are checked one by one in the DTO's order, each named on its own ("Invalid recordingId:
// must be a UUID"). Parameters of other types pass as they are.
// Nest runs the pipes of a handler's parameters from the last to the first: a handler that takes
// both lists its query before its path parameters, so that a bad path is the error reported.
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import type { ZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { parseWith } from './validation';

@Injectable()
export class ZodValidationPipe implements PipeTransform {
  transform(value: unknown, { metatype, type, data }: ArgumentMetadata): unknown {
    if (!isZodDto(metatype)) return value;
    const schema = metatype.schema;
    if (type === 'param' && data === undefined && schema instanceof z.ZodObject) {
      const params = (value ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(schema.shape).map(([name, field]) => [name, parseWith(field, params[name], name)]));
    }
    return parseWith(schema, value, data ?? type);
  }
}

const isZodDto = (metatype: unknown): metatype is ZodDto<z.ZodType> => typeof metatype === 'function' && (metatype as Partial<ZodDto>).isZodDto === true;
