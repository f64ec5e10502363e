// Every type, field, argument, input field and enum value of the schema has a description: the
// schema is the documentation GraphiQL shows (docs/graphql.md#descriptions). GraphQL's own
// introspection types, scalars and directives are described by graphql-js and left out.
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from './schema.js';

const described = (thing: { description?: string | null }) => (thing.description ?? '').trim() !== '';

/** Every schema member without a description, named as `Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`, `@directive(arg:)`. */
function undescribed(target: GraphQLSchema): string[] {
  const missing: string[] = [];
  const args = (owner: string, list: readonly GraphQLArgument[]) => {
    for (const arg of list) if (!described(arg)) missing.push(`${owner}(${arg.name}:)`);
  };
  for (const type of Object.values(target.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (!described(type)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!described(field)) missing.push(`${type.name}.${field.name}`);
        args(`${type.name}.${field.name}`, field.args);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (!described(field)) missing.push(`${type.name}.${field.name}`);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) if (!described(value)) missing.push(`${type.name}.${value.name}`);
    }
  }
  for (const directive of target.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    if (!described(directive)) missing.push(`@${directive.name}`);
    args(`@${directive.name}`, directive.args);
  }
  return missing.sort();
}

describe('schema descriptions', () => {
  it('describe every type, field, argument, input field and enum value', () => {
    expect(undescribed(schema)).toEqual([]);
  });

  it('are looked for in every kind of member, not only in types', () => {
    const tiny = buildSchema(`
      "Reads."
      type Query {
        "Described."
        ok(
          "Described."
          limit: Int
          after: String
        ): Thing
        bare: Color
      }
      type Thing implements Named {
        "Described."
        name: String
      }
      "Named things."
      interface Named {
        name: String
      }
      "A filter."
      input Filter {
        "Described."
        ok: Int
        blank: Int @deprecated(reason: "Empty descriptions count as missing.")
        "   "
        spaces: Int
      }
      "Colours."
      enum Color {
        "Described."
        RED
        BLUE
      }
      directive @tagged(name: String) on FIELD_DEFINITION
      scalar Opaque
    `);
    expect(undescribed(tiny)).toEqual([
      '@tagged',
      '@tagged(name:)',
      'Color.BLUE',
      'Filter.blank',
      'Filter.spaces',
      'Named.name',
      'Opaque',
      'Query.bare',
      'Query.ok(after:)',
      'Thing',
    ]);
  });
});
