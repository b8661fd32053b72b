"""RL environments over the harness's own scaffolds and rewards.

- harness.rl.game: one game as an episode (a stored seed deck, one learning seat, the built-in bot elsewhere) and
  `Position`, which names one decision of the learning seat;
- harness.rl.rewards: the reward of one reply at one decision (the strict reader, the paper's rating reward or the
  engine-grounded one, the penalty of an invalid reply);
- harness.rl.gym_env: a Gymnasium environment, one step per reply;
- harness.rl.verifiers_env: a verifiers (v1) taskset, one task per decision;
- harness.rl.grpo: the same decisions as a dataset and a reward function for TRL's GRPOTrainer.
"""
