// The value shapes of docs/contract.md that REST tests check answers against.

/** A timestamp as the contract writes it: UTC, milliseconds, `Z`. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A UUID v7, the form of every id Assay makes. */
export const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A well-formed id that names nothing. */
export const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';
/** The fields of an evaluator config (docs/contract.md 2.5), sorted. */
export const EVALUATOR_CONFIG_FIELDS = ['created_at', 'evaluator_key', 'id', 'name', 'project_id', 'settings_values', 'updated_at'];
