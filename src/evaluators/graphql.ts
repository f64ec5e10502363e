// GraphQL types of the evaluators domain (filled in by its work).
export {};
