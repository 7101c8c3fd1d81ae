// console.client.js is bundled as text (wrangler.toml `[[rules]]`) and inlined with a nonce.
declare const text: string;
export default text;
