// GraphQL types of the testsets domain (filled in by its work).
export {};
