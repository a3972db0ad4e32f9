"""How the windows name V of the property in use: its symbol, unit, direction, scale and ∞.

Why one place: the graph's legend and colours, the State inspector, the Bellman view, Teach and
the sweep all show V; each used to say "P(reach goal)" on its own. Under a reward property V is
an expected number of steps (or hours, or cost), from 0 to a model-dependent high, possibly
infinite, and lower may be better. The words come from ``taxonomy.property_words`` (what the
questions say) and the scale from ``taxonomy.value_scale`` (what δ is normalised by), so the
windows and the prompts cannot disagree. Under ``Pmax=? [F goal]`` every text is the one of the
rounds before properties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.property_words import PropertyWords, words_of
from explaincheck.core.taxonomy.value_scale import Scale, position, scale_of


@dataclass(frozen=True)
class PropertyUnits:
    """The display words and scale of one oracle's property."""

    oracle: OracleResult

    @cached_property
    def words(self) -> PropertyWords:
        return words_of(self.oracle)

    @cached_property
    def scale(self) -> Scale:
        return scale_of(self.oracle)

    @property
    def is_reward(self) -> bool:
        return self.words.is_reward

    @property
    def legacy(self) -> bool:
        """``Pmax=? [F goal]``: the texts of every earlier round."""
        return self.words.reaches_goal

    @property
    def symbol(self) -> str:
        """V's definition: "Pmax[F goal]", 'R{"time"}min[F "goal"]'."""
        if self.legacy:
            return f"Pmax[F {self.oracle.prop.goal_text}]"
        return self.oracle.prop.text.replace("=? ", "", 1)

    @property
    def value_label(self) -> str:
        """The inspector's row title: "V(s) = Pmax[F goal]"."""
        return f"V(s) = {self.symbol}"

    @property
    def sentence(self) -> str:
        """The property in one phrase, capitalised: "The expected time until reaching the goal,
        when the agent acts to make it as small as possible"."""
        text = self.words.sentence
        return text[:1].upper() + text[1:]

    @property
    def unit(self) -> str:
        """What V measures, short: "probability", "expected number of steps"."""
        return f"expected {self.words.unit}" if self.is_reward else "probability"

    @property
    def direction(self) -> str:
        """ "higher is better" or "lower is better"."""
        return f"{self.words.better} is better"

    @property
    def legend_title(self) -> str:
        """The colour scale's title: "V(s): P(reach goal)" (the earlier rounds'), else the unit
        and the direction: "V(s): expected time, lower is better"."""
        if self.legacy:
            return "V(s): P(reach goal)"
        return f"V(s): {self.unit}, {self.direction}"

    @property
    def low_text(self) -> str:
        return f"{self.scale.low:.3g}" if self.is_reward else "0"

    @property
    def high_text(self) -> str:
        return f"{self.scale.high:.3g}" if self.is_reward else "1"

    @property
    def infinite_text(self) -> str:
        """The legend row of infinite values ("" for a probability, which is never infinite)."""
        if not self.is_reward:
            return ""
        return f"V = ∞: never reaches {self.words.target} for sure"

    def position(self, value: float) -> float | None:
        """Where ``value`` lies on the colour scale, in [0, 1]; None for ∞ (drawn apart)."""
        if math.isinf(value):
            return None
        return position(value, self.oracle)

    def value_text(self, value: float | None, exact: str | None = None) -> str:
        """V or Q for the inspector: 6 significant digits, the exact fraction beside it, ∞ in
        words."""
        if value is None:
            return "—"
        if math.isinf(value):
            return self.words.value_text(value)
        text = f"{value:.6g}"
        if exact is not None and "/" in exact:
            text += f"  (= {exact})"
        return text

    @property
    def dead_end_text(self) -> str:
        """A dead end's kind: "dead end (V = 0)", "(V = ∞)" under a reward, "(V = 1)" under a
        minimised probability."""
        if self.is_reward:
            return "dead end (V = ∞)"
        return "dead end (V = 0)" if self.words.maximising else "dead end (V = 1)"

    @property
    def choice_text(self) -> str:
        """The Bellman view's name of V: "V (reach the goal, max)", "V (expected time, min)"."""
        if self.legacy:
            return "V (reach the goal, max)"
        what = self.unit if self.is_reward else self.words.symbol
        return f"V ({what}, {self.oracle.prop.direction})"


def units_of(oracle: OracleResult) -> PropertyUnits:
    """The display words and scale of ``oracle``'s property."""
    return PropertyUnits(oracle)
