extension Transaction {
    /// On PostgreSQL, takes away the foreign key from `table.column` to `parent.id` and deletes
    /// `table`'s rows with their parent by a trigger instead: what `ON DELETE CASCADE` did, without
    /// the check each inserted row made. That check is a query and a row lock on the parent for
    /// every row: for tables written many rows a statement (a batch of messages and their events),
    /// a tenth of the statement's cost, and a lock on each recipient's account row that two nodes'
    /// batches then share. Only for a table whose every insert already proves its parent in the
    /// same statement (a row it locks or updates there, whose own foreign key or absence refuses
    /// the insert). The trigger runs after the parent's row is deleted, as the cascade did, so a
    /// writer that held the parent's row has committed by then and its rows go too. SQLite keeps
    /// the key (dropping one there means rebuilding the table, and its check is one index lookup).
    public func deleteWithParent(_ table: String, column: String, parent: String) throws {
        guard kind == .postgresql else { return }
        let keys = try query("""
            SELECT conname FROM pg_constraint
            WHERE contype = 'f' AND conrelid = CAST(? AS regclass) AND confrelid = CAST(? AS regclass)
            """, table, parent).map { try $0.decode(column: "conname", as: String.self) }
        for key in keys {
            try execute(#"ALTER TABLE "\#(table)" DROP CONSTRAINT "\#(key)""#)
        }
        let name = "\(table)_go_with_\(parent)"
        try execute(#"""
            CREATE FUNCTION "\#(name)"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM "\#(table)" WHERE "\#(column)" = OLD."id";
                RETURN NULL;
            END $$
            """#)
        try execute(#"""
            CREATE TRIGGER "\#(name)" AFTER DELETE ON "\#(parent)" FOR EACH ROW EXECUTE FUNCTION "\#(name)"()
            """#)
    }
}
