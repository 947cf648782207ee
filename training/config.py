"""Typed configuration of the training pipeline, loaded from a preset TOML.

One TOML section per dataclass below (`[data]`, `[teacher]`, `[stage0]`, ...).  Unknown
sections or keys are errors (a typo must not silently fall back to a default), and every
value a preset sets is logged as *overridden* next to the ones *inherited* from the
defaults (nanochat `chat_sft.py` logs its user config the same way).

    python -m training.config training/presets/tiny.toml          # print the resolved config
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def _f(default: Any, help: str, **kw: Any) -> Any:
    """A dataclass field with a `help` string (argparse / HfArgumentParser style)."""
    return field(default=default, metadata={"help": help}, **kw)


@dataclass
class DataConfig:
    """Where training designs come from, how they are filtered and split."""

    suites: list[str] = field(default_factory=lambda: [], metadata={"help": "suite folders (one design folder with design.toml each)"})
    """Suite folders of training designs."""
    jsonl: list[str] = field(default_factory=lambda: [], metadata={"help": "JSONL files of RTL repositories: one {id, files, [top], [spec]} per line"})
    """JSONL repositories (CodeV-R1 style: id + files)."""
    include: list[str] = field(default_factory=lambda: [], metadata={"help": "fnmatch patterns of design names to keep (empty: all)"})
    """Name patterns to keep."""
    exclude: list[str] = field(default_factory=lambda: [], metadata={"help": "fnmatch patterns of design names to drop"})
    """Name patterns to drop."""
    held_out: list[str] = field(default_factory=lambda: [], metadata={"help": "design names (or patterns) that form the held-out evaluation split"})
    """Explicit held-out designs (from the suites)."""
    held_out_fraction: float = _f(0.0, "fraction of the remaining designs drawn (seeded) into the held-out split")
    """Random held-out share when `held_out` does not name them."""
    eval_suites: list[str] = field(default_factory=lambda: [], metadata={"help": "extra evaluation suites to decontaminate against"})
    """Evaluation suites besides the held-out split."""
    repos: list[str] = field(default_factory=lambda: [], metadata={"help": "repository folders as cloned: every module that builds on its own becomes a training design `<repo>__<module>` (training.data.repos)"})
    """Repositories whose modules become training designs."""
    min_chars: int = _f(100, "drop designs whose RTL is shorter (characters)")
    """Lower length filter."""
    max_chars: int = _f(60_000, "drop designs whose RTL is longer (characters)")
    """Upper length filter (the prompt's RTL cap)."""
    max_files: int = _f(32, "drop designs with more RTL files")
    """File-count filter."""
    verify_top_with_verilator: bool = _f(False, "confirm single-top detection by elaborating with Verilator")
    """Slow but exact top detection (needs Verilator)."""
    rouge_threshold: float = _f(0.5, "decontamination: drop when ROUGE-L F1 >= this against any eval file")
    """ROUGE-L F1 threshold."""
    seed: int = _f(0, "seed of the held-out draw")
    """Split seed."""


@dataclass
class TeacherConfig:
    """The transition model that writes stage-0/1 data."""

    policy: str = _f("heuristic", "heuristic | openai | llama (registry name in agent.policy)")
    """Teacher policy name."""
    model: str = _f("", "GGUF path (llama) or model name (openai)")
    """Model of an LLM teacher."""
    base_url: str = _f("", "OpenAI-compatible endpoint (openai)")
    """Endpoint of an OpenAI teacher."""
    max_tokens: int = _f(2048, "max tokens per teacher reply (LLM teachers)")
    """Reply cap."""
    temperature: float = _f(0.2, "sampling temperature (LLM teachers)")
    """Sampling temperature."""
    seed: int = _f(0, "base seed; sample k uses seed + k")
    """Base seed."""


@dataclass
class StageConfig:
    """Budgets of one data stage (0: curation, 1/2: synthesis, sample: student rollouts)."""

    modes: list[str] = field(default_factory=lambda: ["direct", "agentic"], metadata={"help": "stage 0: `direct` (one step from s_0) and/or `agentic` (full episode)"})
    """Trajectory modes (stage 0 only)."""
    samples: int = _f(1, "episodes (stage 0, sample) or proposals per selected state (stages 1/2) per design")
    """Repeats with different seeds."""
    refinements: int = _f(3, "refinement rounds of agentic / sampling episodes")
    """Rounds after the initial generation."""
    max_sim_calls: int = _f(40, "simulator-call budget per episode or proposal")
    """Simulator budget."""
    wall_time_s: float = _f(120.0, "wall budget per episode or proposal (seconds)")
    """Wall budget."""
    target: float | None = _f(None, "coverage target overriding the design's (synthesis uses 100 so good states still refine)")
    """Target override."""
    min_gain: float = _f(1.0, "keep a transition only if overall coverage rises by at least this many points")
    """Gain rule."""
    floor: float | None = _f(50.0, "absolute floor: drop kept transitions whose overall coverage is below this (None: off)")
    """Absolute floor."""
    median_margin: float = _f(10.0, "sampler: keep the median state only if it is this many points above the worst")
    """Sampler margin."""
    per_design: int = _f(1, "transitions kept per design (LLM4Cov: 1; program records are short, so several fit)")
    """Records kept per design."""
    search_pairs: int = _f(0, "program stage 0: refinement pairs from each teacher run's own search (a program and its "
                              "holes -> a child covering some of them), parents with the most holes first (0: none)")
    """Search pairs per teacher run (training.data.search_pairs)."""
    prefix_states: bool = _f(True, "program stage 0: offer prefixes of the teacher's final program as intermediate states "
                                   "(answered with the whole final program)")
    """Prefix states on or off."""
    max_reply_chars: int = _f(0, "program format, stages 0-2: drop records whose reply is longer than this many "
                                 "characters (the teacher's program is cut at a chapter to fit where it can), so "
                                 "replies end before the student's token cap (0: no cap)")
    """Reply cap of the records."""
    max_designs: int = _f(0, "sample/synthesis: at most this many training designs, drawn with the stage seed (0: all)")
    """Design cap of student sampling (a 135M student on a CPU costs minutes per design)."""
    seed: int = _f(0, "seed of this stage (episodes, sampler)")
    """Stage seed."""


@dataclass
class ModelConfig:
    """The student's base model."""

    kind: str = _f("tiny", "`tiny` (created in code by training.sft.tiny), `path` (a local HF model directory) "
                           "or `gguf` (a GGUF dequantised into transformers, e.g. smollm2-135m)")
    """How the base model is obtained."""
    path: str = _f("", "local HF model directory (kind = path), e.g. /models/Qwen3-4B-Instruct-2507")
    """Base model directory."""
    gguf: str = _f("", "kind = gguf: GGUF path or packaged short name (smollm2-135m); also the `base` eval policy")
    """Base GGUF (loaded with transformers' gguf_file=, dequantised to fp32)."""
    arch: str = _f("qwen3", "tiny: architecture")
    """Tiny architecture."""
    hidden: int = _f(256, "tiny: hidden size (multiple of 16)")
    """Tiny hidden size."""
    layers: int = _f(4, "tiny: decoder layers")
    """Tiny depth."""
    vocab_size: int = _f(512, "tiny: BPE vocabulary budget")
    """Tiny vocabulary."""
    seed: int = _f(0, "tiny: seed of the tokenizer corpus and weights")
    """Tiny seed."""
    params_estimate: float = _f(0.0, "parameter count for the dry-run memory estimate when no weights are read (e.g. 4.02e9)")
    """Parameter count used by --dry-run."""


@dataclass
class SFTConfig:
    """LoRA supervised fine-tuning (one epoch per stage)."""

    lora_r: int = _f(16, "LoRA rank")
    """LoRA r."""
    lora_alpha: int = _f(32, "LoRA alpha (scaling = alpha / r)")
    """LoRA alpha."""
    lora_dropout: float = _f(0.0, "LoRA dropout")
    """LoRA dropout."""
    target_modules: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], metadata={"help": "module names LoRA adapts"})
    """LoRA targets."""
    modules_to_save: list[str] = field(default_factory=lambda: [], metadata={"help": "modules trained in full beside LoRA (e.g. embed_tokens for a random tiny model)"})
    """Fully trained modules."""
    lr: float = _f(2e-4, "peak learning rate (AdamW, linear warmup then cosine)")
    """Learning rate."""
    weight_decay: float = _f(0.0, "AdamW weight decay")
    """Weight decay."""
    warmup_ratio: float = _f(0.05, "share of steps spent warming up")
    """Warmup share."""
    batch_size: int = _f(1, "sequences per micro-batch")
    """Micro-batch."""
    grad_accum: int = _f(1, "micro-batches per optimizer step")
    """Accumulation."""
    epochs: int = _f(1, "epochs per stage (LLM4Cov: 1)")
    """Epochs per stage."""
    max_len: int = _f(8192, "drop records longer than this many tokens (counted in meta.json)")
    """Sequence cap."""
    bf16: bool = _f(False, "train in bfloat16 (GPU)")
    """bf16 autocast."""
    gradient_checkpointing: bool = _f(False, "recompute activations to save memory")
    """Gradient checkpointing."""
    threads: int = _f(1, "CPU threads for torch: N, 0 (torch's default: every core) or -1 (every core when "
                         "they are idle as training starts, else 1: on a busy 2-core box a second thread "
                         "waits on the other core and each step gets slower)")
    """torch threads."""
    max_steps: int = _f(0, "stop after this many optimizer steps (0: the whole epoch); for smoke tests")
    """Step cap."""
    seed: int = _f(0, "seed of shuffling and LoRA init")
    """SFT seed."""


@dataclass
class ExportConfig:
    """Merged model -> GGUF -> quantized GGUF."""

    outtype: str = _f("f32", "converter output type: f32 | f16 | bf16 | q8_0")
    """Converter output."""
    qtype: str = _f("Q8_0", "llama.cpp quantization: Q8_0 (tiny) | Q4_K_M (4B) | ...")
    """Quantization."""
    parity: bool = _f(True, "compare HF and GGUF tokens and logits")
    """Run the parity check."""
    parity_tol: float = _f(1e-2, "max |logit diff| allowed between HF and the unquantized GGUF")
    """Parity tolerance."""
    threads: int = _f(1, "threads for quantization and parity")
    """Threads."""


@dataclass
class EvalConfig:
    """Student vs teacher on the held-out split."""

    policies: list[str] = field(default_factory=lambda: ["student", "heuristic"], metadata={"help": "`student` (the exported GGUF), `base` (model.gguf, untrained), `hybrid` / `hybrid-base` (the engine seeded with the student's / base's programs) and/or registry policy names; `base@sv` / `student@program` override prompt.format for one entry"})
    """What to bench."""
    refinements: int = _f(3, "refinements per episode")
    """Rounds."""
    max_sim_calls: int = _f(40, "simulator budget per episode")
    """Simulator budget."""
    wall_time_s: float = _f(120.0, "wall budget per episode")
    """Wall budget."""
    max_tokens: int = _f(1024, "student reply cap (tokens)")
    """Student reply cap."""
    n_ctx: int = _f(8192, "student context size")
    """Student context."""
    temperature: float = _f(0.2, "student sampling temperature")
    """Student temperature."""
    jobs: int = _f(1, "designs in parallel")
    """Parallel designs."""


@dataclass
class PromptConfig:
    """Caps of the rendered prompts (agent.llm.prompting.PromptLimits) used for training records and the student."""

    max_rtl_chars: int = _f(60_000, "RTL characters in the context")
    """RTL cap."""
    max_spec_chars: int = _f(16_000, "specification characters in the context")
    """Spec cap."""
    max_testbench_chars: int = _f(24_000, "characters of the current testbench shown in a follow-up")
    """Testbench cap."""
    max_uncovered: int = _f(30, "uncovered points listed in a follow-up")
    """Uncovered-point cap."""
    max_errors: int = _f(20, "compile messages listed in a follow-up")
    """Error cap."""
    max_log_lines: int = _f(40, "log lines shown for a failed run")
    """Log cap."""
    max_excerpt_chars: int = _f(1500, "RTL characters shown around the holes when the context's RTL is shortened")
    """Hole-excerpt cap (0: no excerpts)."""
    compact_targets: bool = _f(False, "write the heuristic teacher's replay testbenches compactly in SFT records (training.data.compact)")
    """Compact replay tables in records (same stimulus, about a third of the tokens)."""
    format: str = _f("sv", "what the student writes: `sv` (a complete testbench, LLM4Cov) or `program` (a stimulus program under the design's grammar)")
    """Reply format of records, sampling and evaluation."""

    def limits(self) -> Any:
        """As agent.llm.prompting.PromptLimits."""
        from agent.llm.prompting import PromptLimits

        return PromptLimits(max_rtl_chars=self.max_rtl_chars, max_spec_chars=self.max_spec_chars,
                            max_testbench_chars=self.max_testbench_chars, max_uncovered=self.max_uncovered,
                            max_errors=self.max_errors, max_log_lines=self.max_log_lines,
                            max_excerpt_chars=self.max_excerpt_chars)


@dataclass
class PipelineConfig:
    """Which stages `pipeline` runs and how simulations fan out."""

    stages: list[str] = field(default_factory=lambda: ["data", "stage0", "sft0", "export0", "sample1", "stage1", "sft1", "export1",
                            "sample2", "stage2", "sft2", "export2", "eval"], metadata={"help": "stages in order"})
    """Stage order."""
    workers: int = _f(2, "local process-pool size for simulations")
    """Pool size."""
    ray: str = _f("", "Ray address (`auto`, `ray://host:10001`, or `local` for ray.init(num_cpus=workers)); empty: process pool")
    """Ray address."""
    student_max_tokens: int = _f(1024, "student reply cap while sampling states")
    """Sampling reply cap."""
    student_n_ctx: int = _f(8192, "student context while sampling")
    """Sampling context."""
    student_temperature: float = _f(0.7, "student temperature while sampling (diverse states)")
    """Sampling temperature."""


@dataclass
class TrainConfig:
    """The whole pipeline's configuration (one TOML file)."""

    name: str = _f("tiny", "preset name (recorded in every meta.json)")
    """Preset name."""
    data: DataConfig = field(default_factory=DataConfig)
    """Designs."""
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    """Teacher."""
    stage0: StageConfig = field(default_factory=StageConfig)
    """Stage-0 curation budgets."""
    sample: StageConfig = field(default_factory=lambda: StageConfig(modes=["agentic"], floor=None))
    """Student state sampling budgets."""
    stage1: StageConfig = field(default_factory=lambda: StageConfig(target=100.0))
    """Stage-1 synthesis (teacher fixes)."""
    stage2: StageConfig = field(default_factory=lambda: StageConfig(target=100.0))
    """Stage-2 synthesis (student fixes)."""
    prompt: PromptConfig = field(default_factory=PromptConfig)
    """Prompt caps (the defaults are the inference defaults)."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """Student base model."""
    sft: SFTConfig = field(default_factory=SFTConfig)
    """Fine-tuning."""
    export: ExportConfig = field(default_factory=ExportConfig)
    """GGUF export."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """Evaluation."""
    pipeline: PipelineConfig = field(default_factory=PipelineConfig)
    """Orchestration."""
    source: str = ""
    """Path of the TOML the config came from ('' for defaults)."""
    overridden: list[str] = field(default_factory=list)
    """Dotted keys the TOML or --set changed (everything else is inherited)."""


class ConfigError(ValueError):
    """A preset has an unknown key or a value of the wrong type."""


def _is_section(f: dataclasses.Field[Any]) -> bool:
    return dataclasses.is_dataclass(f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)


def _coerce(value: Any, current: Any, where: str) -> Any:
    """Check a TOML value against the default's type (ints are accepted for floats)."""
    if current is None or value is None:
        return value
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true/false, got {value!r}")
        return value
    if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(current, list):
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return value
    if not isinstance(value, type(current)):
        raise ConfigError(f"{where}: expected {type(current).__name__}, got {type(value).__name__} {value!r}")
    return value


def apply(cfg: TrainConfig, data: dict[str, Any], where: str) -> None:
    """Merge parsed TOML data into `cfg` in place, recording overridden keys."""
    sections = {f.name: f for f in fields(cfg) if f.name not in ("source", "overridden")}
    for key, value in data.items():
        if key not in sections:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sections)})")
        if _is_section(sections[key]):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{key}] must be a table")
            section = getattr(cfg, key)
            known = {f.name for f in fields(section)}
            for sub, sub_value in value.items():
                if sub not in known:
                    raise ConfigError(f"{where}: unknown key {key}.{sub} (known: {', '.join(sorted(known))})")
                setattr(section, sub, _coerce(sub_value, getattr(section, sub), f"{where}: {key}.{sub}"))
                cfg.overridden.append(f"{key}.{sub}")
        else:
            setattr(cfg, key, _coerce(value, getattr(cfg, key), f"{where}: {key}"))
            cfg.overridden.append(key)


def parse_set(item: str) -> dict[str, Any]:
    """`section.key=value` (value in TOML syntax, bare words as strings) -> nested dict."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {item!r}: expected section.key=value")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    parts = key.strip().split(".")
    out: dict[str, Any] = {}
    node = out
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def load_config(path: Path | str | None, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """Load a preset TOML (None: defaults) and apply `--set` overrides; relative paths resolve against the TOML."""
    cfg = TrainConfig()
    if path is not None:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: config file not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        apply(cfg, data, str(path))
        cfg.source = str(path.resolve())
        base = path.resolve().parent
        # Suite and JSONL paths in a preset are relative to the preset file.
        cfg.data.suites = [str((base / p).resolve()) for p in cfg.data.suites]
        cfg.data.jsonl = [str((base / p).resolve()) for p in cfg.data.jsonl]
        cfg.data.eval_suites = [str((base / p).resolve()) for p in cfg.data.eval_suites]
        cfg.data.repos = [str((base / p).resolve()) for p in cfg.data.repos]
    for item in overrides:
        apply(cfg, parse_set(item), f"--set {item}")
    validate(cfg)
    return cfg


def validate(cfg: TrainConfig) -> None:
    """Fail early, naming the offending values."""
    from training.export.gguf import OUTTYPES, QTYPES

    if cfg.model.kind not in ("tiny", "path", "gguf"):
        raise ConfigError(f"model.kind={cfg.model.kind!r}: expected 'tiny', 'path' or 'gguf'")
    if cfg.model.kind == "path" and not cfg.model.path:
        raise ConfigError("model.kind='path' needs model.path (a local HF model directory)")
    if cfg.model.kind == "gguf" and not cfg.model.gguf:
        raise ConfigError("model.kind='gguf' needs model.gguf (a GGUF path or a short name such as smollm2-135m)")
    if cfg.export.outtype not in OUTTYPES:
        raise ConfigError(f"export.outtype={cfg.export.outtype!r} is not one of {OUTTYPES}")
    if cfg.export.qtype and cfg.export.qtype not in QTYPES:
        raise ConfigError(f"export.qtype={cfg.export.qtype!r} is not one of {tuple(QTYPES)}")
    if not 0.0 < cfg.data.rouge_threshold <= 1.0:
        raise ConfigError(f"data.rouge_threshold={cfg.data.rouge_threshold} must be in (0, 1]")
    if not 0.0 <= cfg.data.held_out_fraction < 1.0:
        raise ConfigError(f"data.held_out_fraction={cfg.data.held_out_fraction} must be in [0, 1)")
    if cfg.prompt.format not in ("sv", "program"):
        raise ConfigError(f"prompt.format={cfg.prompt.format!r}: expected 'sv' or 'program'")
    bad_modes = set(cfg.stage0.modes) - {"direct", "agentic"}
    if bad_modes:
        raise ConfigError(f"stage0.modes has unknown modes {sorted(bad_modes)} (known: direct, agentic)")
    if cfg.sft.lora_r <= 0 or cfg.sft.lora_alpha <= 0:
        raise ConfigError(f"sft.lora_r={cfg.sft.lora_r} and sft.lora_alpha={cfg.sft.lora_alpha} must be positive")
    if cfg.sft.batch_size < 1 or cfg.sft.grad_accum < 1:
        raise ConfigError(f"sft.batch_size={cfg.sft.batch_size}, sft.grad_accum={cfg.sft.grad_accum} must be >= 1")
    from agent.policy import POLICIES

    if cfg.teacher.policy not in POLICIES:
        raise ConfigError(f"teacher.policy={cfg.teacher.policy!r} is not one of {', '.join(POLICIES)}")
    for entry in cfg.eval.policies:
        name, _, fmt = entry.partition("@")
        if name not in ("student", "base", "hybrid-base") and name not in POLICIES:
            raise ConfigError(f"eval.policies has {entry!r}: expected 'student', 'base', 'hybrid-base' or one of "
                              f"{', '.join(POLICIES)}")
        if fmt and (name not in ("student", "base") or fmt not in ("sv", "program")):
            raise ConfigError(f"eval.policies has {entry!r}: only student/base take @sv or @program")
    for base in ("base", "hybrid-base"):
        if any(e.partition("@")[0] == base for e in cfg.eval.policies) and cfg.model.kind != "gguf":
            raise ConfigError(f"eval.policies has '{base}', which needs model.kind='gguf' (the base GGUF to bench)")


def to_dict(cfg: TrainConfig) -> dict[str, Any]:
    """Plain data of a config (for meta.json)."""
    return dataclasses.asdict(cfg)


def log_config(cfg: TrainConfig) -> None:
    """Log every value as overridden (by the preset / --set) or inherited (default)."""
    data = to_dict(cfg)
    for section, values in data.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            dotted = f"{section}.{key}"
            how = "overridden" if dotted in cfg.overridden else "inherited"
            logger.info("config %-32s = %-30s (%s)", dotted, json.dumps(value), how)


def main(argv: list[str] | None = None) -> int:
    """Print the resolved config of a preset."""
    args = sys.argv[1:] if argv is None else argv
    cfg = load_config(args[0] if args else None, args[1:])
    print(json.dumps(to_dict(cfg), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
