"""Bad input to ensel's selector and aggregators for large pools, and the pool simulator:
one clear ValueError naming the parameter, its constraint and the value."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.aggregate import BackoffMAP, LogisticStacking
from ensel.pools import family_pool
from ensel.select import ScoreMI, score_mi

X = np.array([[1, -1], [-1, 1], [1, 1], [-1, -1]])
y = np.array([1, -1, 1, -1])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: score_mi(X, y, 3), "k of score_mi must be an integer in [1, 2]"),
    (lambda: score_mi(X, np.ones(4), 1), "both"),
    (lambda: ScoreMI(1, n_bins=1).fit(X, y),
     "n_bins of ScoreMI must be an int in [2, inf); got 1"),
    (lambda: ScoreMI(1, level=1.5).fit(X, y),
     "level of ScoreMI must be a real number in (0, 1)"),
    (lambda: LogisticStacking(l2=-1).fit(X, y),
     "l2 of LogisticStacking must be a real number in (0, inf); got -1"),
    (lambda: LogisticStacking(fit_intercept="yes").fit(X, y),
     "fit_intercept of LogisticStacking must be a bool or one of 'auto'; got 'yes'"),
    (lambda: LogisticStacking(max_iter=0).fit(X, y),
     "max_iter of LogisticStacking must be an int in [1, inf); got 0"),
    (lambda: LogisticStacking().fit(X, y).predict(X[:, :1]),
     "X of LogisticStacking.predict must be of 2 columns"),
    (lambda: BackoffMAP(strength=0).fit(X, y),
     "strength of BackoffMAP must be a real number in (0, inf)"),
    (lambda: BackoffMAP(strength="max").fit(X, y),
     "strength of BackoffMAP must be a real number in (0, inf) or one of 'auto'; got 'max'"),
    (lambda: BackoffMAP().fit(X, [1, 2, 3, 1]), "y"),  # two labels are classes_; three are not
    (lambda: family_pool(10, 100, common=0.6, within=0.5),
     "within of family_pool must be a real number in [0, 0.4) (common + within < 1); got 0.5"),
    (lambda: family_pool(10, 0), "n of family_pool must be an int in [1, inf); got 0"),
    (lambda: family_pool(10, 10, acc_low=0.4), "acc_low of family_pool must be"),
])
def test_one_clear_error(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
