#!/usr/bin/env bash
# The README's tour, as a script: below the marker line are README.md's `sh tour` blocks, in order
# and verbatim (test/tour.test.ts checks it, and runs this against a real server). Needs curl, jq
# and node. ASSAY is the service's address (http://127.0.0.1:8000 unless set), APP_PORT the port
# of the stand-in app it starts (9000 unless set).
#   ASSAY=http://127.0.0.1:8000 bash scripts/tour.sh
set -euo pipefail
# Here a failed call stops the tour (a reader sees the error body either way).
curl() { command curl --fail-with-body --show-error "$@"; }
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
# ---- README.md's tour blocks from here ----
ASSAY=${ASSAY:-http://127.0.0.1:8000}
# A stand-in for your app, on 127.0.0.1:9000: answers a test case's country with its capital
# (in capitals when called with ?shout=1), as an endpoint variant is called.
node -e '
const capitals = { France: "Paris", Japan: "Tokyo", Peru: "Lima" };
require("node:http").createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk)).on("end", () => {
    const answer = capitals[JSON.parse(body || "{}").inputs?.country] ?? "I do not know";
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ message: req.url.includes("shout") ? answer.toUpperCase() : answer }));
  });
}).listen(process.argv[1], "127.0.0.1");' "${APP_PORT:-9000}" & STAND_IN=$!
ENDPOINT=http://127.0.0.1:${APP_PORT:-9000}/generate
until curl -so /dev/null "$ENDPOINT" 2>/dev/null; do sleep 0.2; done   # until it answers
APP=$(curl -s $ASSAY/apps -d '{"app_name": "capitals"}' | jq -r .app_id)
V1=$(curl -s $ASSAY/apps/$APP/variants -d '{"variant_name": "v1", "kind": "endpoint", "uri": "'$ENDPOINT'"}' | jq -r .variant_id)
V2=$(curl -s $ASSAY/apps/$APP/variants -d '{"variant_name": "v2", "kind": "endpoint", "uri": "'$ENDPOINT'?shout=1"}' | jq -r .variant_id)
GPT=$(curl -s $ASSAY/apps/$APP/variants -d '{"variant_name": "gpt", "kind": "prompt",
  "parameters": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Capital of {country}?"}], "temperature": 0}}' | jq -r .variant_id)
curl -s -X PUT $ASSAY/variants/$GPT/parameters -d '{"parameters": {"model": "gpt-4o-mini",
  "messages": [{"role": "user", "content": "Capital of {country}? One word."}], "temperature": 0}}' | jq -c '{variant_id, revision}'
curl -s $ASSAY/variants/$GPT/revisions | jq -c 'map({revision, content: .parameters.messages[0].content})'
TESTSET=$(curl -s $ASSAY/testsets -d '{"name": "capitals", "app_id": "'$APP'", "csvdata": [
  {"country": "France", "correct_answer": "Paris"}, {"country": "Japan", "correct_answer": "Tokyo"},
  {"country": "Peru", "correct_answer": "Lima"}]}' | jq -r .id)
printf 'country,correct_answer\nFrance,Paris\nItaly,Rome\n' > capitals.csv
curl -s $ASSAY/testsets/upload -F file=@capitals.csv -F upload_type=CSV -F testset_name=capitals-csv -F app_id=$APP | jq -c
curl -s $ASSAY/evaluators | jq -r '.[].key'      # the 18 built-in evaluators
CONFIG=$(curl -s $ASSAY/evaluators/configs -d '{"app_id": "'$APP'", "name": "exact",
  "evaluator_key": "auto_exact_match", "settings_values": {}}' | jq -r .id)              # (contract)
EVALUATIONS=$(curl -s $ASSAY/evaluations -d '{"app_id": "'$APP'", "variant_ids": ["'$V1'", "'$V2'"],
  "evaluators_configs": ["'$CONFIG'"], "testset_id": "'$TESTSET'",
  "rate_limit": {"batch_size": 10, "max_retries": 3, "retry_delay": 1, "delay_between_batches": 0}}')  # (contract)
EVALUATION=$(echo "$EVALUATIONS" | jq -r '.[0].id')                                  # one per variant
until curl -s $ASSAY/evaluations/$EVALUATION/status | jq -e '.status.value | test("FINISHED|FAILED|CANCELLED")'; do sleep 0.5; done
curl -s $ASSAY/evaluations/$EVALUATION/evaluation_scenarios | jq -c '.[] | [.inputs[0].value, .outputs[0].result.value, .results[0].result.value]'  # (contract)
curl -s "$ASSAY/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=$(echo "$EVALUATIONS" | jq -r 'map(.id) | join(",")')" \
  | jq -c '.[] | [.inputs[0].value, (.variants[] | .variant_name, .scenario.outputs[0].result.value)]'
HUMAN=$(curl -s $ASSAY/human-evaluations -d '{"app_id": "'$APP'", "variant_ids": ["'$V1'", "'$V2'"],
  "evaluation_type": "human_a_b_testing", "inputs": ["country"], "testset_id": "'$TESTSET'"}' | jq -r .id)
until curl -s $ASSAY/human-evaluations/$HUMAN | jq -e '.status | test("FINISHED|FAILED")'; do sleep 0.5; done   # (contract)
SCENARIO=$(curl -s $ASSAY/human-evaluations/$HUMAN/evaluation_scenarios | jq -r '.[0].id')                        # (contract)
curl -s -X PUT $ASSAY/human-evaluations/$HUMAN/evaluation_scenario/$SCENARIO/human_a_b_testing \
  -d '{"vote": "'$V1'", "judge": "ana"}' | jq -c '{vote, outputs}'
curl -s $ASSAY/human-evaluations/$HUMAN/results | jq -c .votes_data.variants_votes_data
curl -s $ASSAY/observability/trace -d '{"trace": "4bf92f3577b34da6a3ce929d0e0e4736", "spans": [
  {"id": "00f067aa0ba902b7", "name": "agent", "spankind": "AGENT", "start_time": "2026-11-22T10:00:00Z", "end_time": "2026-11-22T10:00:02Z"},
  {"id": "00f067aa0ba902b8", "parent_span_id": "00f067aa0ba902b7", "name": "llm", "spankind": "LLM",
   "start_time": "2026-11-22T10:00:00.5Z", "end_time": "2026-11-22T10:00:01.5Z",
   "tokens": {"prompt_tokens": 12, "completion_tokens": 3}, "cost": 0.0001}]}' | jq -c
curl -s $ASSAY/observability/traces/4bf92f3577b34da6a3ce929d0e0e4736/ | jq -c '{name, children: [.children[].name]}'   # (contract)
curl -s "$ASSAY/observability/spans/00f067aa0ba902b8/?type=span" | jq -c '{name, spankind, metadata}'            # (contract)
kill $STAND_IN   # the stand-in app; the tour is over
