"""RL environments over the harness's own scaffolds and rewards (docs/rl.md): one game as an episode (game),
the reward of one reply (rewards), a Gymnasium env (gym_env), a verifiers taskset (verifiers_env) and TRL rows
(grpo)."""
