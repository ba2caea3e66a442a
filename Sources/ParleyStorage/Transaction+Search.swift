extension Transaction {
    /// On PostgreSQL, a pg_trgm GIN index on `table.column`, which `ILIKE '%text%'` (what `LIKE`
    /// becomes there, see `PostgreSQLDialect`) uses for any part of three characters or more — the
    /// counterpart of SQLite's FTS5 trigram tables. pg_trgm ships with PostgreSQL (contrib) and is
    /// a trusted extension, so a database's owner may create it; where it cannot be had, the
    /// statement is undone alone and search stays a scan: the same answers, only slower.
    /// Returns whether the index was made. Does nothing on SQLite.
    @discardableResult
    public func createTrigramIndex(_ name: String, on table: String, column: String) throws -> Bool {
        guard kind == .postgresql else { return false }
        try execute("SAVEPOINT trigram")
        do {
            try execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        } catch {
            try execute("ROLLBACK TO SAVEPOINT trigram")
            return false
        }
        try execute("RELEASE SAVEPOINT trigram")
        try execute(#"CREATE INDEX "\#(name)" ON "\#(table)" USING gin ("\#(column)" gin_trgm_ops)"#)
        return true
    }
}
