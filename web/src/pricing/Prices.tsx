// Prices (docs/ui.md#administration, docs/observability.md): what a million tokens of a model
// cost, the project's own before the built-in table; add or correct one, delete the project's own.
import { type FormEvent } from 'react';
import { graphql, useFragment, usePaginationFragment, usePreloadedQuery } from 'react-relay';
import type { Prices_query$key } from '../__generated__/Prices_query.graphql.ts';
import type { PricesDeleteMutation } from '../__generated__/PricesDeleteMutation.graphql.ts';
import type { PricesQuery } from '../__generated__/PricesQuery.graphql.ts';
import type { PricesRow_price$key } from '../__generated__/PricesRow_price.graphql.ts';
import type { PricesUpsertMutation } from '../__generated__/PricesUpsertMutation.graphql.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { effectiveText, optionalNumber } from './prices.ts';
import { ConfirmButton, useActions, useCommit } from '../components/actions.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { PricesQueries } from './entrypoints.ts';

const query = graphql`
  query PricesQuery {
    ...Prices_query
  }
`;

// The project's own prices, then the built-in table: 100 a page, "Show more" for the next.
const listFragment = graphql`
  fragment Prices_query on Query
  @refetchable(queryName: "PricesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    modelPrices(first: $count, after: $cursor) @connection(key: "Prices_modelPrices") {
      edges {
        node {
          id
          ...PricesRow_price
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment PricesRow_price on ModelPrice {
    id
    model
    input
    output
    cachedInput
    effectiveFrom
    source
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

/** Prices asked at a time. */
const PAGE = 100;

const usd = (value: number | null | undefined) => (value == null ? '–' : `$${value}`);

function PriceRow({ price: priceRef, onDelete }: { price: PricesRow_price$key; onDelete: (id: string) => void }) {
  const price = useFragment(rowFragment, priceRef);
  return (
    <tr>
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
          <ConfirmButton label="Delete" question={`Delete the price of ${price.model}?`} confirm="Delete price" onConfirm={() => onDelete(price.id)} />
        )}
      </td>
    </tr>
  );
}

export function Prices({ queries }: ScreenProps<RouteOf<'admin'>, PricesQueries>) {
  const { data, hasNext, loadNext, isLoadingNext, refetch } = usePaginationFragment(
    listFragment,
    usePreloadedQuery<PricesQuery>(query, queries.prices) as Prices_query$key,
  );
  const { modelPrices } = data;
  // After a change, every price shown so far is read again (not only the first page).
  const { error, act } = useActions(() => refetch({ count: Math.max(PAGE, modelPrices.edges.length) }, { fetchPolicy: 'store-and-network' }));
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
              <PriceRow key={price.id} price={price} onDelete={(id) => void act(() => commitRemove({ id }))} />
            ))}
          </tbody>
        </table>
      )}
      {hasNext && (
        <button type="button" className="secondary" disabled={isLoadingNext} onClick={() => loadNext(PAGE)}>
          Show more
        </button>
      )}
    </>
  );
}
