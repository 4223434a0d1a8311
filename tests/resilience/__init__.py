"""Operations: consumer lag, failure drills over real servers."""
