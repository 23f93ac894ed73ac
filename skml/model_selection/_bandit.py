"""Successive halving for best-arm identification (notes A §11.2)."""

import math
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["successive_halving_bandit"]


def successive_halving_bandit(arms, budget, random_state=None, *, averages="round"):
    """Find the arm with the largest mean reward by successive halving.

    The notes' Algorithm 1 (A §11.2, after Karnin, Koren and Somekh, 2013):
    with ``n`` arms and a budget of ``B`` pulls, each of the
    ``L = ceil(log2 n)`` rounds gets ``B' = floor(B / L)`` pulls, shared
    equally by the arms still in play (``floor(B' / |S_r|)`` pulls each); the
    better half of the arms, by empirical average reward, go on to the next
    round. The last round leaves one arm.

    Parameters
    ----------
    arms : sequence of callables
        ``arms[i](rng)`` returns one reward (a float) of arm ``i``; ``rng`` is
        the :class:`numpy.random.Generator` seeded from ``random_state``, so
        a seeded call is reproducible.
    budget : int
        Total number of pulls ``B``. Each arm must get at least one pull in
        the first round: ``budget >= n * ceil(log2 n)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the generator handed to the arms.
    averages : {"round", "all"}, default="round"
        Which pulls an arm's empirical average uses: those of the current
        round only ("round", the independent samples the notes' theorem
        assumes), or every pull of the arm so far ("all").

    Returns
    -------
    best_arm : int
        Index of the arm left after the last round.
    history : list of dict
        One dict per round: ``round``, ``arms`` (indices in play),
        ``pulls_per_arm``, ``means`` (their empirical averages, aligned with
        ``arms``) and ``kept`` (the indices that go on).

    Notes
    -----
    Choices the notes leave open:

    * **n not a power of two.** The survivors of a round are the
      ``ceil(|S_r| / 2)`` best arms, so the number of rounds is
      ``ceil(log2 n)`` and the last round always leaves exactly one arm
      (5 arms: 5, 3, 2, 1). Rounding up never drops the best arm for want of
      a place.
    * **Integer pulls.** ``B'`` and ``B' / |S_r|`` are rounded down, so the
      pulls spent never exceed ``budget`` (the remainder is left unspent).
    * **Ties** go to the lower index (a stable sort).
    * **Averages** use the current round's pulls by default; see ``averages``.

    The notes' theorem: with the means sorted ``v_1 >= v_2 >= ...``,
    ``Δ_i = v_1 - v_i`` and ``H_2 = max_{i>1} i / Δ_i^2``, a budget
    ``B = O(H_2 log n log(log n / δ))`` finds the best arm with probability at
    least ``1 - δ``. Time: ``O(B)`` arm calls plus ``O(n log n)``.

    References
    ----------
    Z. Karnin, T. Koren, O. Somekh, "Almost optimal exploration in
    multi-armed bandits", ICML 2013.

    Examples
    --------
    >>> from skml.model_selection import successive_halving_bandit
    >>> arms = [lambda rng, p=p: float(rng.random() < p) for p in (0.2, 0.9, 0.5, 0.4)]
    >>> best, history = successive_halving_bandit(arms, budget=400, random_state=0)
    >>> best, len(history)
    (1, 2)
    """
    arms = list(arms)
    n = len(arms)
    if n == 0:
        raise ValueError("arms must hold at least one callable; got an empty sequence.")
    if not all(callable(a) for a in arms):
        raise TypeError("arms must be callables returning a reward.")
    if isinstance(budget, bool) or not isinstance(budget, Integral) or budget < 1:
        raise ValueError(f"budget must be a positive int; got {budget!r}.")
    if averages not in ("round", "all"):
        raise ValueError(f"averages must be 'round' or 'all'; got {averages!r}.")
    if n == 1:
        return 0, []
    n_rounds = math.ceil(math.log2(n))
    # Repeated halving with ceil also ends at 1 after ceil(log2 n) rounds.
    per_round = budget // n_rounds
    if per_round // n < 1:
        raise ValueError(
            f"budget={budget} is too small for one round: {n} arms over "
            f"{n_rounds} rounds need budget >= {n * n_rounds}."
        )
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    rng = np.random.default_rng(seed)
    totals = np.zeros(n)
    counts = np.zeros(n, dtype=np.int64)
    alive = np.arange(n)
    history = []
    for r in range(n_rounds):
        pulls = per_round // alive.size
        means = np.empty(alive.size)
        for j, i in enumerate(alive):
            s = float(sum(arms[i](rng) for _ in range(pulls)))
            totals[i] += s
            counts[i] += pulls
            means[j] = s / pulls if averages == "round" else totals[i] / counts[i]
        n_keep = math.ceil(alive.size / 2)
        order = np.argsort(-means, kind="stable")
        kept = np.sort(alive[order[:n_keep]])
        history.append({
            "round": r, "arms": alive.tolist(), "pulls_per_arm": int(pulls),
            "means": means.tolist(), "kept": kept.tolist(),
        })
        alive = kept
    return int(alive[0]), history
