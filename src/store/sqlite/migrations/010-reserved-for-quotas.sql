-- Placeholder: number 010 belongs to the per-inbox quotas (issue 49), built
-- on another branch. The runner refuses a gap in the numbering, so this
-- branch holds the number; the quotas' own 010 replaces this file at merge.
SELECT 1;
