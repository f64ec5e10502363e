// GraphQL types of the observability domain (filled in by its work).
export {};
