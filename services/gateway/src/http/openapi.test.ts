import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { declaresAnswer, OPERATIONS } from '@htm/contracts/routes';
import { buildOpenApiDocument } from './openapi.js';

type Responses = Record<
  string,
  { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> }
>;
type Doc = { paths: Record<string, Record<string, { responses: Responses }>> };

describe('/api/openapi.json', () => {
  const doc = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document (the official 3.1 schema)', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken document: an answer without its required description.
    const broken = structuredClone(doc) as unknown as Doc;
    delete (broken.paths['/api/me'].get.responses['200'] as { description?: string }).description;
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('declares what every operation answers: a JSON schema, a file or page media type, or no body', () => {
    expect(
      OPERATIONS.filter((op) => !declaresAnswer(op)).map((op) => `${op.method} ${op.path}`),
    ).toEqual([]);
    const paths = (doc as unknown as Doc).paths;
    const undocumented: string[] = [];
    for (const op of OPERATIONS) {
      const responses = paths[op.path]?.[op.method]?.responses;
      if (!responses) {
        undocumented.push(`${op.method} ${op.path}: missing`);
        continue;
      }
      const status = op.status ?? 200;
      for (const code of [status, ...Object.keys(op.also ?? {}).map(Number)]) {
        const success = responses[String(code)];
        if (!success) undocumented.push(`${op.method} ${op.path}: no ${code}`);
        else if (code === 302 || code === 303) {
          if (!success.headers?.Location)
            undocumented.push(`${op.method} ${op.path}: ${code} without Location`);
        } else if (code !== 204 && !op.noBody) {
          const content = Object.entries(success.content ?? {});
          if (!content.length || content.some(([, c]) => !c.schema))
            undocumented.push(`${op.method} ${op.path}: ${code} without a body schema`);
          // A JSON answer is an object (never `{}` or a bare string).
          const json = success.content?.['application/json']?.schema as
            { type?: string; anyOf?: { type?: string }[]; oneOf?: { type?: string }[] } | undefined;
          // One of several shapes (a job's or a pack's shared report) counts when each is an object.
          const members = json?.anyOf ?? json?.oneOf;
          const isObject = members
            ? members.length > 0 && members.every((m) => m.type === 'object')
            : json?.type === 'object';
          if (json && !isObject)
            undocumented.push(`${op.method} ${op.path}: JSON answer is not an object`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});
