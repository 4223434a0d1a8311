"""The recommender: a ranked feed learnt from a reader's feedback and library (scikit-learn), the models kept per
reader; the matcher reads the same models for its ranked digests."""
