// Every schema the package compiles, against its meta-schema: its own files (0.1.0 and 0.3 are
// draft-07, 1.0 is 2020-12) and the published schemas it rebuilds from them. The package's Ajv
// instances do not check this when a schema is added (validateSchema: false, a start-up cost in
// every process): it is checked here, once.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { a2aSchema, publishedSchema } from '../src/index.js';
import { a2aSchema03, publishedSchema03 } from '../src/v03/index.js';
import { a2aSchema10, publishedSchema10 } from '../src/v10/index.js';

test.each([
  ['0.1.0, the package’s', a2aSchema, Ajv],
  ['0.1.0, as published', publishedSchema(), Ajv],
  ['0.3, the package’s', a2aSchema03, Ajv],
  ['0.3, as published', publishedSchema03(), Ajv],
  ['1.0, the package’s', a2aSchema10, Ajv2020],
  ['1.0, as published', publishedSchema10(), Ajv2020],
] as const)('the %s schema is valid against its meta-schema', (_name, schema, AjvClass) => {
  const ajv = new AjvClass({ strict: false });
  const valid = ajv.validateSchema(schema as Record<string, unknown>) as boolean;
  expect(valid ? [] : ajv.errors).toEqual([]);
});

test('a schema that breaks its meta-schema is caught here', () => {
  const ajv = new Ajv({ strict: false });
  expect(ajv.validateSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'not a type' })).toBe(false);
});
