export type * from "./api";
