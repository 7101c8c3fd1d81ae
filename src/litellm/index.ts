/**
 * The front door of src/litellm/: what the rest of the code may import from it.
 */
export {
  badPrice,
  convertEntry,
  foldDatedNames,
  isTextModel,
  modelNameOf,
  priceKey,
  seedProvider,
} from "./convert";
