/**
 * The front door of src/litellm/: what the rest of the code may import from it.
 */
export {
  badPrice,
  convertEntry,
  foldDatedNames,
  isTextModel,
  modelNameOf,
  PRICE_FIELDS,
  priceKey,
  seedProvider,
} from "./convert";
