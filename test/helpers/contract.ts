// Validates values against schemas of the OpenAPI document (its $refs resolved in the document).
import Ajv2020 from "ajv/dist/2020";

const DOC_ID = "https://contract.test/openapi.json";

/** Returns a checker: undefined when `value` satisfies `schema` (a schema taken from `doc`), the errors otherwise. */
export function contractChecker(doc: { components: unknown }) {
  // Formats are left to the zod schemas (unit test) and to the real answers' own shape.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
  return (schema: object, value: unknown): string | undefined => {
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${DOC_ID}#/components/`)));
    return validate(value) ? undefined : JSON.stringify(validate.errors);
  };
}
