"""Developer tools that no pipeline job runs: the speed benchmark (:mod:`.bench`, ``dpb bench``,
``make bench``)."""
