// The console's stylesheet, bundled as text (wrangler.toml `[[rules]]`) and inlined with a nonce.
declare module "*.client.css" {
  const text: string;
  export default text;
}
