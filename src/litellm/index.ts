/**
 * The front door of src/litellm/: what the rest of the code may import from it.
 */
export {
  PRICE_FIELDS,
  badPrice,
  convertEntry,
  foldDatedNames,
  isTextModel,
  modelNameOf,
  priceKey,
  seedProvider,
} from "./convert";
