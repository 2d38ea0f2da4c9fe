/**
 * sha256 of released migration files as they were before their view and function DDL moved to sql/views and
 * sql/functions (issue 31), and of 014 before its history functions, triggers and comments became
 * definitions generated from the relations' declarations (src/relations/), and of the files before their
 * comments on those relations' tables became generated too (the second of a pair), and of 014 and 026 before
 * the history tables and their indexes became the table sync's (both now empty): a warehouse that applied them
 * records these, and the schema they made is the one the stripped files and the definitions make together.
 * Version -> earlier accepted checksums.
 */
export const LEGACY_CHECKSUMS: Readonly<Record<number, readonly string[]>> = {
  1: ['8e525938879229e4267b484fa406a25a5cc4938f2b4d170a9162ed3648a93b88'], // 001_schema.sql
  3: ['b232f7e5e5ef1aa8a0b185670add649c0be3b5ed09b7c41b609d78d5e3617492', '22ecaaff5e79e3e3a25f51a9cb00553f979332d1fda15a8b0b8896ee936a7cfb'], // 003_comments_and_views.sql
  4: ['7a234276e948f8d737999c55e1d0d7102348c857d6b493ca7d9e423599ff7d5f'], // 004_sources.sql
  5: ['e34a99a03cf7947a4f38bc58defc6721540c8e0ae514fcc1918fc925d6d6f133'], // 005_views.sql
  6: ['67e821c188fec180fbe7646d55947cbed3ba1b051e74aa3f99ee0c496379bd42', '4d058cd9f76e4406673c5ce8fb462bd5d6072eb83c8151cdda8415e6deaced70'], // 006_source_comments.sql
  7: ['0df89c6a7a6c8355b6274670d344a22154daf311d4c817eeb18ef3d34457185d'], // 007_compact_ledger.sql
  8: ['23865a71c5a8dbac8e3d633e50132284bca59085d0521216e0da70df7a75057d', '10dae1f8399bc0b87f94a95bdd3aa9855b4c6db64c7cf8d7913df68202d5f910'], // 008_snapshots.sql
  9: ['432040f1bb4c968310f498733dc76ad7a2dba5d40cb9c22abc234da773000141'], // 009_snapshot_views.sql
  10: ['b59c82af95bf4102480cf284512687888053bbde586e7f3007090fc55ae251e4'], // 010_linear_ledger.sql
  11: ['46e4b6c4e8163659e6f9098949814941ace12e88b4d171df102fab5f67be82b8', '39786a0f7ea74d60d61586b6efadb4d217b5708e8c494d43337685e7a5fbcb7d'], // 011_parking_sources.sql
  13: ['7d4d45e5de23bbecdec2270ed61f1a7b477b2a9075af109b125fe8baa5273899', '2ef5a2ebab6ab397ba47c08a1232f1c060d00c605d8e979136a9e1e837ef04cb'], // 013_stop_summary_lonlat.sql
  14: ['801380c0808fe34cde704006c0d92a64f5dec00cbb3de6175f99d96155e51d80', 'e7297478cd2b35f5379d1e8e3003bc31051c822287ba652d42dec93b002312b5'], // 014_history.sql
  16: ['c813b4cf57bd2a2e7f225df94f1fb5d23d4f0c81b9a645f480c7039928a97e81'], // 016_tile_vocabulary.sql
  17: ['22a06de6429160e68dbbf8308a4a3124dd39a912377b243d3e9476d45c78c4a2'], // 017_bulk_load.sql
  18: ['d6ed37066fe007ed3fb99a83da4a46d849dc3fe195b24e8a89395441786d1b9a'], // 018_tile_types.sql
  19: ['fdc40423c13e0f172db9a58c4df56104c31482f09979a28e8e04aedbbe3d643d', 'da63787c252bfb3c7501d3a7326e2562bd44492f00e9acc83917d49ebd63b2a1'], // 019_snapshot_keys.sql
  21: ['88b4878b7e1c37866f3be6aac050f665ec97f5b04172b7da5444d38de9407eff'], // 021_stopped_runs_line_count.sql
  22: ['fcbaae9ce78b5f3c4d2b9fe32c85e2ad7cdc95b4efacfb75e7f2dcf39a6ada04', 'c1546396581b6bea24cc35335164fd5ecdcdc5279def88c85e27323ad769a06c'], // 022_time_zone_partitions.sql
  26: ['408c5bb985b270a6bad9c6eb024e9f177feee4ef302bab15c662546a86c46947'], // 026_lake_history_index.sql
  28: ['8673a1e3d123f05cfb4bbf12a562a4c26955fd699bd76671524902bdeffc8821'], // 028_snapshot_rollups.sql
};
