// Prices (docs/ui.md#administration, docs/observability.md): what a million tokens of a model
// cost, the project's own before the built-in table; add or correct one, delete the project's own.
import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { PricesDeleteMutation } from '../__generated__/PricesDeleteMutation.graphql.ts';
import type { PricesQuery } from '../__generated__/PricesQuery.graphql.ts';
import type { PricesUpsertMutation } from '../__generated__/PricesUpsertMutation.graphql.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { effectiveText, optionalNumber } from './prices.ts';
import { ConfirmButton, useActions, useCommit } from '../components/actions.tsx';

const query = graphql`
  query PricesQuery($first: Int!) {
    modelPrices(first: $first) {
      edges {
        node {
          id
          model
          input
          output
          cachedInput
          effectiveFrom
          source
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`;

const upsert = graphql`
  mutation PricesUpsertMutation($input: ModelPriceInput!) {
    upsertModelPrice(input: $input) {
      id
    }
  }
`;

const remove = graphql`
  mutation PricesDeleteMutation($id: ID!) {
    deleteModelPrice(id: $id)
  }
`;

const usd = (value: number | null | undefined) => (value == null ? '–' : `$${value}`);

export function Prices() {
  const { fetchKey, error, act } = useActions();
  const [first, setFirst] = useState(100);
  const { modelPrices } = useLazyLoadQuery<PricesQuery>(query, { first }, { fetchKey, fetchPolicy: 'store-and-network' });
  const [commitUpsert, saving] = useCommit<PricesUpsertMutation>(upsert);
  const [commitRemove] = useCommit<PricesDeleteMutation>(remove);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const effectiveFrom = formText(form, 'effectiveFrom').trim();
    void act(async () => {
      await commitUpsert({
        input: {
          model: formText(form, 'model'),
          input: Number(formText(form, 'input')),
          output: Number(formText(form, 'output')),
          cachedInput: optionalNumber(formText(form, 'cachedInput')),
          effectiveFrom: effectiveFrom || undefined,
        },
      });
      formElement.reset();
    });
  };

  return (
    <>
      <form className="admin-form" onSubmit={(event) => void submit(event)} aria-label="Set a price">
        <h2>Set a price</h2>
        <p className="muted small">
          USD per million tokens. A model name prices every dated name that starts with it; the same model and date corrects the price.
        </p>
        <div className="inline-fields">
          <Field label="Model" name="model" required placeholder="gpt-4o-mini" error={error?.fields.model} />
          <Field label="Input" name="input" type="number" min="0" step="any" required error={error?.fields.input} />
          <Field label="Output" name="output" type="number" min="0" step="any" required error={error?.fields.output} />
          <Field label="Cached input" name="cachedInput" type="number" min="0" step="any" error={error?.fields.cachedInput} />
          <Field label="From (date)" name="effectiveFrom" type="date" error={error?.fields.effectiveFrom} />
          <button type="submit" disabled={saving}>
            Save price
          </button>
        </div>
        <FormError message={error && Object.keys(error.fields).length === 0 ? error.message : null} />
      </form>
      {modelPrices.edges.length === 0 ? (
        <Empty title="No prices" />
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">Model prices, the project's own first</caption>
          <HeadRow columns={['Model', 'Input', 'Output', 'Cached input', 'From', 'Source']} numeric={['Input', 'Output', 'Cached input']} actions />
          <tbody>
            {modelPrices.edges.map(({ node: price }) => (
              <tr key={price.id}>
                <td>
                  <code>{price.model}</code>
                </td>
                <td className="numeric">{usd(price.input)}</td>
                <td className="numeric">{usd(price.output)}</td>
                <td className="numeric">{usd(price.cachedInput)}</td>
                <td>{effectiveText(price.effectiveFrom)}</td>
                <td>{price.source === 'USER' ? 'project' : 'built-in'}</td>
                <td>
                  {price.source === 'USER' && (
                    <ConfirmButton
                      label="Delete"
                      question={`Delete the price of ${price.model}?`}
                      confirm="Delete price"
                      onConfirm={() => void act(() => commitRemove({ id: price.id }))}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {modelPrices.pageInfo.hasNextPage && (
        <button type="button" className="secondary" onClick={() => setFirst((count) => count + 100)}>
          Show more
        </button>
      )}
    </>
  );
}
