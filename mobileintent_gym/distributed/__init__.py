"""Running envs in several processes: thread limits of workers, Ray rollouts."""

from mobileintent_gym.distributed.threads import (
    THREAD_VARIABLES,
    WORKER_THREADS_ENV,
    worker_environment,
    worker_thread_env,
)

__all__ = ["THREAD_VARIABLES", "WORKER_THREADS_ENV", "worker_environment", "worker_thread_env"]
