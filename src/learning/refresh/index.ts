/**
 * The front door of src/learning/refresh/: what the rest of the code may import from it.
 */
export { breakerLogSubject } from "./breakers";
export { readPublished, refreshLearning } from "./refresh";
export { learningView } from "./view";
