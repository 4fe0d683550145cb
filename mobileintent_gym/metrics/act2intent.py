"""The Act2Intention family of scores, gathered: understanding, prediction and execution.

Each lives in its own module (:mod:`.understanding`, :mod:`.prediction`, :mod:`.execution`);
docs/scores.md defines them.
"""

from mobileintent_gym.metrics.execution import CLICK_TOLERANCE, action_matches, step_success_rate
from mobileintent_gym.metrics.prediction import (
    PUSH_THRESHOLD,
    STRICT_PUSH_THRESHOLD,
    Prediction,
    parse_prediction,
    prediction_scores,
)
from mobileintent_gym.metrics.understanding import (
    Segmentation,
    aligned_texts,
    goal_accuracy,
    read_segmentation,
    spans,
    understanding_scores,
)
from mobileintent_gym.vocabulary import EVENT_CLASSES

__all__ = ["CLICK_TOLERANCE", "EVENT_CLASSES", "PUSH_THRESHOLD", "STRICT_PUSH_THRESHOLD",
           "Prediction", "Segmentation", "action_matches", "aligned_texts", "goal_accuracy",
           "parse_prediction", "prediction_scores", "read_segmentation", "spans",
           "step_success_rate", "understanding_scores"]
