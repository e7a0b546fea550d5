"""Each item's own options: the multiple-choice aggregators put no mass on options an item
does not have, break its ties among its own options, and are unchanged where every item
offers every class."""

from __future__ import annotations

import numpy as np
import pytest

from ensel._errors import UsageError
from ensel.aggregate import MULTICLASS_AGGREGATORS, make_aggregator
from ensel.data import OptionMatrix
from ensel.experiment import heldout_errors
from ensel.pools import multiclass_pool
from ensel.protocol import Protocol

NAMES = sorted(MULTICLASS_AGGREGATORS)


def _mixed(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """10-option answers where a third of the items offer only 3 options: their gold is
    among the first 3, answers beyond them are abstentions, and 20 of them no model
    answered. Half of the 10-option items have the gold 10th option (their codes swapped),
    so that a model blind to the option counts learns a prior leaning to it."""
    pool = multiclass_pool(9, 1500, n_options=10, share=0.6, random_state=seed)
    A, y = pool.A.astype(np.int16), pool.y.astype(np.int16)
    k = np.where(np.arange(len(y)) % 3 == 0, 3, 10).astype(np.int16)
    small = k == 3
    swap = ~small & (np.arange(len(y)) % 2 == 0)
    g = y[swap, None]
    A[swap] = np.where(A[swap] == g, 9, np.where(A[swap] == 9, g, A[swap]))
    y[swap] = 9
    y[small] = y[small] % 3
    A[small] = np.where(pool.A[small] == pool.y[small, None], y[small, None], 9)
    A[small] = np.where(A[small] < 3, A[small], -1)  # an answer outside the options: none
    A[np.flatnonzero(small)[:20]] = -1
    return A, y, k


@pytest.mark.parametrize("name", NAMES)
def test_an_item_with_three_options_never_gets_a_fourth(name) -> None:
    A, y, k = _mixed()
    est = make_aggregator(name, random_state=0).fit(A, y, n_options=k)
    pred = est.predict(A, n_options=k)
    assert (pred < k).all()
    proba = est.predict_proba(A, n_options=k)
    assert (proba[k == 3][:, 3:] == 0).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    ties = est.predict_ties(A, n_options=k)
    assert not ties[k == 3][:, 3:].any()
    # an item no model answered: a fair tie among its own 3 options, 1 - 1/3 of an error
    none = np.flatnonzero(k == 3)[:20]
    if name == "plurality":
        np.testing.assert_allclose(est.tie_error(A[none], y[none], n_options=k[none]), 2 / 3)
    assert est.score(A, y, n_options=k) >= 0.0


@pytest.mark.parametrize("name", ["plurality", "ds", "family_ds"])
def test_label_free_fits_respect_the_options_too(name) -> None:
    A, y, k = _mixed(1)
    est = make_aggregator(name, random_state=0).fit(A, n_options=k)
    if hasattr(est, "labels_"):
        assert (est.labels_ < k).all()
        assert (est.posteriors_[k == 3][:, 3:] == 0).all()
    assert (est.predict(A, n_options=k) < k).all()


def test_without_the_counts_a_three_option_item_can_get_a_fourth() -> None:
    """The test above bites: blind to the counts, Dawid-Skene gives the 3-option items no
    model answered the option its prior favours, the 10th, which they do not have."""
    A, y, k = _mixed()
    blind = make_aggregator("ds", random_state=0).fit(A).predict(A)
    assert (blind[k == 3] >= 3).any()
    told = make_aggregator("ds", random_state=0).fit(A, n_options=k).predict(A, n_options=k)
    assert (told[k == 3] < 3).all()
    assert (told == y).mean() >= (blind == y).mean()


@pytest.mark.parametrize("name", NAMES)
def test_one_shared_option_set_is_byte_identical(name) -> None:
    pool = multiclass_pool(8, 1200, n_options=4, share=0.5, abstain=(0.0, 0.1), random_state=2)
    k = np.full(len(pool.y), 4)
    plain = make_aggregator(name, random_state=0).fit(pool.A, pool.y)
    told = make_aggregator(name, random_state=0).fit(pool.A, pool.y, n_options=k)
    assert plain.option_mask(k, pool.A) is None
    np.testing.assert_array_equal(told.predict(pool.A, n_options=k), plain.predict(pool.A))
    np.testing.assert_array_equal(told.predict_proba(pool.A, n_options=k),
                                  plain.predict_proba(pool.A))
    np.testing.assert_array_equal(told.tie_error(pool.A, pool.y, n_options=k),
                                  plain.tie_error(pool.A, pool.y))


def test_heldout_errors_reads_each_items_options_from_the_matrix() -> None:
    """An OptionMatrix with items of 3 and 10 options: the held-out loop passes each item's
    count, so a 3-option item no model answered counts 2/3 of an error, not 9/10."""
    A, y, k = _mixed()
    om = OptionMatrix(A, y, [tuple("ABCDEFGHIJ"[:n]) for n in k.tolist()],
                      [f"q{i}" for i in range(len(y))], [f"m{j}" for j in range(A.shape[1])])
    errs = heldout_errors(om, ks=[3, 9], protocol=Protocol(n_splits=2), selectors=["topk"])
    assert set(errs["aggregator"]) == set(NAMES)
    assert errs["error"].between(0, 1).all()
    one = OptionMatrix(A[:, :1], y, om.options, om.items, om.models[:1])
    e1 = heldout_errors(one, ks=[1], protocol=Protocol(n_splits=1), selectors=["topk"],
                        aggregators=["plurality"])
    # by hand: the split's test items, each a fair tie among its own options when unanswered
    from ensel.experiment import split_indices

    _, te = split_indices(len(y), condition="all", split=0, item_ids=om.items)
    a, g, kk = A[te, 0], y[te], k[te]
    want = np.where(a < 0, 1 - 1 / kk, (a != g).astype(float)).mean()
    assert e1["error"].iloc[0] == pytest.approx(want)


# ----------------------------------------------------------------------------- bad input
def test_an_answer_beyond_its_items_options_is_named() -> None:
    A = np.array([[0, 1], [2, 4], [1, 1]])
    with pytest.raises(UsageError, match=r"option 4 from model \(column\) 1 on item \(row\) 1, "
                                         r"which has 3 options"):
        make_aggregator("plurality").fit(A, n_options=[3, 3, 5])
    with pytest.raises(UsageError, match=r"y of DawidSkene.fit .* option 3 from item 0"):
        make_aggregator("ds").fit(A, [3, 0, 1], n_options=[3, 5, 5])


def test_counts_need_codes_one_per_item_and_two_options() -> None:
    with pytest.raises(UsageError, match="n_options of PluralityVote.fit must be None for "
                                         "option labels"):
        make_aggregator("plurality").fit([["A", "B"], ["B", "A"]], n_options=[2, 2])
    with pytest.raises(UsageError, match=r"integers, one per item \(2\)"):
        make_aggregator("plurality").fit([[0, 1], [1, 0]], n_options=[2, 2, 2])
    with pytest.raises(UsageError, match="at least 2 options per item; got 1 at item 1"):
        make_aggregator("plurality").fit([[0, 1], [0, 0]], n_options=[2, 1])
    pv = make_aggregator("plurality").fit([[0, 1], [1, 0]])
    with pytest.raises(UsageError, match="PluralityVote.predict"):
        pv.predict([[0, 1]], n_options=[1.5])
