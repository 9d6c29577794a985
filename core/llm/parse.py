"""Reading a model's answer back into values of the feature's closed set.

Answers arrive as JSON (structured output) or as the paper's free text ending in
"Conclusion: <option>", decorated in every way models like: markdown bold, headings, code
fences, ``<think>`` blocks of reasoning models, odd casing, and synonyms such as
"subject-object-verb".  Whatever the decoration, the result is either a label of the set (or
"Not enough information") or no value plus a ``problem`` that says why: a label outside the set
is never returned as a value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from core.llm.features import NOT_ENOUGH_INFORMATION, PAPER_NOT_MENTIONED, FeatureSpec

NEI_PHRASES = (
    NOT_ENOUGH_INFORMATION, PAPER_NOT_MENTIONED, "not mentioned", "insufficient information",
    "not enough info", "cannot be determined", "can not be determined", "unknown", "undetermined",
    "no information", "not stated", "n/a", "na",
)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.S)
_CONCLUSION = re.compile(r"\bconclusion\b[*_`#\s]*(?:[:：]|[-–—]|\n)", re.I)
_CITED_LINE = re.compile(r"(?im)^[\s*_#>-]*(?:cited\s+|relevant\s+)?paragraphs?(?:\s+(?:used|cited|relied on))?"
                         r"[*_`\s]*[:：][*_`\s]*(.*)$")
_CITED_INLINE = re.compile(r"(?i)(?:paragraphs?|¶)\s*#?\s*(\d+(?:\s*(?:,|and|&|-|–)\s*#?\d+)*)|\[(\d+)\]")
_BINARY = {"1": "1", "0": "0", "yes": "1", "no": "0", "present": "1", "absent": "0", "true": "1", "false": "0"}


@dataclass(frozen=True)
class ParsedValue:
    """One value read from an answer; ``code`` is None for "Not enough information"."""

    feature_id: str
    code: str | None
    label: str


@dataclass
class ParsedAnswer:
    values: list[ParsedValue] = field(default_factory=list)
    reasoning: str = ""
    cited_numbers: list[int] = field(default_factory=list)
    problem: str | None = None  # why (some) values could not be read
    conclusion_text: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.values) and self.problem is None


def key(text: str) -> str:
    """Compare labels ignoring case, punctuation, dashes and markdown: 'Subject–Object–Verb' -> 'subject object verb'."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def strip_thinking(text: str) -> str:
    """Drop reasoning-model ``<think>`` blocks, including an unclosed one or a stray closing tag."""
    text = _THINK.sub("", text)
    low = text.lower()
    if "</think>" in low:
        text = text[low.rindex("</think>") + len("</think>"):]
    elif "<think>" in low:
        text = text[: low.index("<think>")]
    return text.strip()


def parse_answer(content: str | None, spec: FeatureSpec, evidence_count: int = 0) -> ParsedAnswer:
    """Read values, reasoning and cited paragraph numbers from a raw answer."""
    text = strip_thinking(content or "")
    if not text:
        return ParsedAnswer(problem="The model returned an empty answer.")
    data = _json_object(text)
    if data is not None and ("value" in data or "strategies" in data):
        answer = _from_json(data, spec)
    else:
        answer = _from_text(text, spec)
    answer.cited_numbers, bad = _clean_numbers(answer.cited_numbers, evidence_count)
    if bad and answer.problem is None and evidence_count:
        answer.reasoning += f"\n[GrammarLens: ignored citations of paragraphs that were not offered: {bad}]"
    return answer


def _json_object(text: str) -> dict | None:
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        start, end = cand.find("{"), cand.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            obj = json.loads(cand[start:end + 1])
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _from_json(data: dict, spec: FeatureSpec) -> ParsedAnswer:
    answer = ParsedAnswer(reasoning=str(data.get("reasoning") or "").strip())
    cited = data.get("cited_paragraphs") or data.get("paragraphs") or []
    answer.cited_numbers = [int(n) for n in cited if isinstance(n, (int, float, str)) and str(n).strip().isdigit()] \
        if isinstance(cited, list) else []
    if spec.is_multilabel:
        raw = data.get("strategies")
        if not isinstance(raw, dict):
            answer.problem = "The answer has no per-strategy values."
            return answer
        pairs = {key(k): str(v) for k, v in raw.items()}
        answer.conclusion_text = json.dumps(raw, ensure_ascii=False)
        _fill_multilabel(answer, spec, lambda sub: pairs.get(key(sub.sub_label or sub.name)))
        return answer
    raw_value = str(data.get("value") or "").strip()
    answer.conclusion_text = raw_value
    _fill_single(answer, spec, raw_value)
    return answer


def _from_text(text: str, spec: FeatureSpec) -> ParsedAnswer:
    matches = list(_CONCLUSION.finditer(text))
    if matches:
        last = matches[-1]
        reasoning, conclusion = text[: last.start()], text[last.end():]
    elif len(text) <= 120 and not spec.is_multilabel:
        reasoning, conclusion = "", text  # a bare "SOV" is an answer too
    elif spec.is_multilabel and _polar_pairs(text, spec):
        reasoning, conclusion = text, text
    else:
        return ParsedAnswer(reasoning=text, cited_numbers=_numbers_in(text),
                            problem='The answer has no "Conclusion:" line naming an option.')
    cited = _cited_from_text(reasoning)
    reasoning = _CITED_LINE.sub("", reasoning).strip().rstrip("*_#` \n")
    answer = ParsedAnswer(reasoning=reasoning, cited_numbers=cited)
    conclusion = conclusion.strip().strip("*_`#> \n")
    answer.conclusion_text = conclusion
    if spec.is_multilabel:
        pairs = _polar_pairs(conclusion, spec) or _polar_pairs(text, spec)
        if pairs:
            _fill_multilabel(answer, spec, lambda sub: pairs.get(sub.id))
        else:
            _polar_names(answer, spec, conclusion)
        return answer
    first = conclusion.split("\n\n")[0].strip()
    lines = [ln for ln in first.splitlines() if ln.strip()]
    _fill_single(answer, spec, lines[0] if len(lines) == 1 else first)
    if answer.problem and len(lines) > 1:
        retry = ParsedAnswer(reasoning=answer.reasoning, cited_numbers=answer.cited_numbers)
        _fill_single(retry, spec, lines[0])
        if retry.problem is None:
            return retry
    return answer


def _fill_single(answer: ParsedAnswer, spec: FeatureSpec, raw: str) -> None:
    label = match_label(raw, spec)
    if label is None:
        shown = raw if len(raw) <= 80 else raw[:77] + "..."
        answer.problem = f"The answer {shown!r} is not one of the options ({', '.join(spec.options())})."
    elif label == NOT_ENOUGH_INFORMATION:
        answer.values = [ParsedValue(spec.id, None, NOT_ENOUGH_INFORMATION)]
    else:
        answer.values = [ParsedValue(spec.id, spec.code_of(label), label)]


def _fill_multilabel(answer: ParsedAnswer, spec: FeatureSpec, lookup) -> None:
    missing, bad = [], []
    for sub in spec.subfeatures:
        raw = lookup(sub)
        if raw is None:
            missing.append(sub.sub_label or sub.name)
            continue
        label = match_label(str(raw), sub)
        if label is None:
            bad.append(f"{sub.sub_label or sub.name}={raw!r}")
        elif label == NOT_ENOUGH_INFORMATION:
            answer.values.append(ParsedValue(sub.id, None, NOT_ENOUGH_INFORMATION))
        else:
            answer.values.append(ParsedValue(sub.id, sub.code_of(label), label))
    problems = []
    if missing:
        problems.append(f"no value for {', '.join(missing)}")
    if bad:
        problems.append(f"values outside 1/0 for {', '.join(bad)}")
    if problems:
        answer.problem = "The answer is incomplete: " + "; ".join(problems) + "."


def _polar_pairs(text: str, spec: FeatureSpec) -> dict[str, str]:
    """'Tone: 1, Interrogative word order: 0' -> {sub id: raw value}."""
    found: dict[str, str] = {}
    for sub in spec.subfeatures:
        name = re.escape(sub.sub_label or sub.name).replace(r"\-", "[-‐–\\s]?").replace(r"\ ", r"\s+")
        m = None
        for m in re.finditer(rf"(?i){name}[*_`\"'\s]*[:=–—-][*_`\"'\s]*"
                             rf"(1|0|yes|no|present|absent|true|false|{re.escape(NOT_ENOUGH_INFORMATION)})\b",
                             text):
            pass
        if m is not None:
            found[sub.id] = m.group(1)
    return found


def _polar_names(answer: ParsedAnswer, spec: FeatureSpec, conclusion: str) -> None:
    """The gold-file style 'Clause-final question particle, Tone': named strategies 1, the rest 0."""
    k = f" {key(conclusion)} "
    if key(conclusion) in {key(p) for p in NEI_PHRASES}:
        answer.values = [ParsedValue(s.id, None, NOT_ENOUGH_INFORMATION) for s in spec.subfeatures]
        return
    named = [s for s in spec.subfeatures if f" {key(s.sub_label or s.name)} " in k]
    if not named:
        answer.problem = f"The answer {conclusion[:80]!r} names none of the strategies."
        return
    answer.values = [ParsedValue(s.id, s.code_of("1" if s in named else "0"), "1" if s in named else "0")
                     for s in spec.subfeatures]


def match_label(raw: str, spec: FeatureSpec) -> str | None:
    """The option that ``raw`` means, or None. Returns NOT_ENOUGH_INFORMATION for its synonyms."""
    k = key(raw)
    if not k:
        return None
    labels = {key(label): label for label in spec.labels()}
    nei = {key(p) for p in NEI_PHRASES}
    if k in labels:
        return labels[k]
    if k in nei:
        return NOT_ENOUGH_INFORMATION
    synonyms = {key(s): label for s, label in spec.synonyms.items()}
    if set(spec.labels()) == {"0", "1"}:
        synonyms.update(_BINARY)
    if k in synonyms:
        return synonyms[k]
    by_count = _case_range(k, spec)
    if by_count:
        return by_count
    # A longer phrase naming exactly one option ("SOV (subject-object-verb)", "the order is SVO.").
    hits: set[str] = set()
    padded = f" {k} "
    for lk, label in list(labels.items()) + list(synonyms.items()):
        if len(lk) >= 3 and f" {lk} " in padded:
            hits.add(label)
    for phrase in nei:
        if len(phrase) >= 8 and f" {phrase} " in padded:
            hits.add(NOT_ENOUGH_INFORMATION)
    hits = {h for h in hits if not any(h != o and key(h) in key(o) for o in hits)}
    return hits.pop() if len(hits) == 1 else None


def _case_range(k: str, spec: FeatureSpec) -> str | None:
    """'6 cases' or '7' -> '6-7 cases'; '12 cases' -> '10 or more cases' (labels like WALS 49A's)."""
    m = re.fullmatch(r"(\d+)(?: cases?)?", k)
    if not m:
        return None
    n = int(m.group(1))
    for label in spec.labels():
        lk = key(label)
        r = re.fullmatch(r"(\d+)(?: (\d+))? cases?", lk)
        if r and int(r.group(1)) <= n <= int(r.group(2) or r.group(1)):
            return label
        r = re.fullmatch(r"(\d+) or more cases?", lk)
        if r and n >= int(r.group(1)):
            return label
    return None


def _cited_from_text(text: str) -> list[int]:
    lines = _CITED_LINE.findall(text)
    if lines:
        return _numbers_of(lines[-1])
    return _numbers_in(text)


def _numbers_in(text: str) -> list[int]:
    out: list[int] = []
    for m in _CITED_INLINE.finditer(text):
        out += _numbers_of(m.group(1) or m.group(2))
    return out


def _numbers_of(text: str) -> list[int]:
    out: list[int] = []
    for a, b in re.findall(r"(\d+)\s*(?:[-–]\s*(\d+))?", text):
        lo, hi = int(a), int(b) if b else int(a)
        out += list(range(lo, hi + 1)) if 0 <= hi - lo <= 50 else [lo]
    return out


def _clean_numbers(numbers: list[int], count: int) -> tuple[list[int], list[int]]:
    good, bad, seen = [], [], set()
    for n in numbers:
        if n in seen:
            continue
        seen.add(n)
        (good if 1 <= n <= count else bad).append(n)
    return good, bad
