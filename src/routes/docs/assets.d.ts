// Swagger UI's browser assets, bundled as text by the `[[rules]]` in wrangler.toml.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}
