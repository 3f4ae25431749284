"""Names of OP-E3's algorithms that the plan, the cells and the verdicts share
(docs/papers/op24.md): its own module, so that none of them imports another for a name."""

#: OP-E3's planted contestant (:mod:`dpbandits.engine.egreedy`): a learner with a known worse rate
#: on the same contexts and checkpoints, which the audit must detect.
CONTESTANT = "egreedy"

#: OP-E3 algorithms without noise (privacy value 0, index 0).
OP_E3_NON_PRIVATE = ("linucb", CONTESTANT)
