"""What FastAPI with pydantic v2 answers for a request body, for src/shared/validation.fastapi-parity.test.ts.

Reads [{"model": <name>, "body": <the raw body text>, "content_type": <optional>}] on stdin and
prints, for each, the 422's faults [{"loc", "type", "msg", "input"}, ...] as FastAPI's JSON
answer shows them (an empty list when the body validates). The models are the contract's request
bodies with Assay's documented rules (docs/validation.md); the body handling is FastAPI's own:
an empty body is missing, a body whose Content-Type is neither absent nor JSON's is validated as
its raw bytes (fastapi/routing.py), a malformed one `json_invalid` at Python's position, a JSON
null is missing, and models are validated with from_attributes, as FastAPI does.
"""
import email.message
import json
import sys
from enum import Enum
from typing import Dict, List, Optional

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, TypeAdapter, ValidationError, constr

Id = constr(min_length=1)
Name = constr(strip_whitespace=True, min_length=1, max_length=255)
ProviderSetting = constr(pattern=r"^[A-Z][A-Z0-9]*_(API_KEY|BASE_URL)$")


class RateLimit(BaseModel):
    batch_size: int = Field(ge=1, le=1000)
    max_retries: int = Field(ge=0, le=20)
    retry_delay: int = Field(ge=0, le=3600)
    delay_between_batches: int = Field(ge=0, le=3600)


class NewEvaluation(BaseModel):
    app_id: Id
    variant_ids: List[Id] = Field(min_length=1)
    evaluators_configs: List[Id] = Field(min_length=1)
    testset_id: Id
    rate_limit: RateLimit
    lm_providers_keys: Optional[Dict[ProviderSetting, str]] = None
    correct_answer_column: Optional[Name] = None


class EvaluatorKey(str, Enum):
    auto_similarity_match = "auto_similarity_match"
    auto_regex_test = "auto_regex_test"
    auto_webhook_test = "auto_webhook_test"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SimilaritySettings(Settings):
    similarity_threshold: float = Field(default=0.5, ge=0, le=1)
    correct_answer_key: Optional[str] = None


class RegexSettings(Settings):
    regex_pattern: str
    regex_should_match: bool = True


class WebhookSettings(Settings):
    webhook_url: HttpUrl


def evaluator_config(settings):
    class NewEvaluatorConfig(BaseModel):
        app_id: Id
        name: Name
        evaluator_key: EvaluatorKey
        settings_values: settings

    return NewEvaluatorConfig


MODELS = {
    "evaluation": NewEvaluation,
    "similarity_config": evaluator_config(SimilaritySettings),
    "regex_config": evaluator_config(RegexSettings),
    "webhook_config": evaluator_config(WebhookSettings),
}


def declares_json(content_type):
    """FastAPI's test: no Content-Type, or application/json or application/<anything>+json."""
    if content_type is None:
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


def fault(loc, type_, msg, input_):
    # jsonable_encoder answers bytes decoded.
    return {"loc": loc, "type": type_, "msg": msg, "input": input_.decode() if isinstance(input_, bytes) else input_}


def fastapi_faults(model, text, content_type):
    raw = text.encode("utf-8")
    if raw == b"":
        return [fault(["body"], "missing", "Field required", None)]
    if declares_json(content_type):
        try:
            body = json.loads(raw)
        except json.JSONDecodeError as error:
            return [fault(["body", error.pos], "json_invalid", "JSON decode error", {})]
    else:
        body = raw
    if body is None:
        return [fault(["body"], "missing", "Field required", None)]
    try:
        TypeAdapter(model).validate_python(body, from_attributes=True)
        return []
    except ValidationError as error:
        return [fault(["body", *e["loc"]], e["type"], e["msg"], e["input"]) for e in error.errors()]


cases = json.load(sys.stdin)
print(json.dumps([fastapi_faults(MODELS[case["model"]], case["body"], case.get("content_type")) for case in cases], default=str))
