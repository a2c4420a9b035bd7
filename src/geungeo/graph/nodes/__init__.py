"""The answer graph's nodes, one module per stage: routing, planning, retrieval, judging, generation, grading."""
