import ParleyStorage

/// The Quotes schema, in versions. Never edit a shipped step: add the next one.
public enum QuoteMigrations {
    public static let all: [Migration] = [
        Migration("quotes.1") { sql in
            // `seq` orders quotes newest first and keys the search index; `id` is what clients see.
            try sql.execute(#"""
                CREATE TABLE "quotes" ("seq" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE, "text" TEXT NOT NULL, "added_by" TEXT REFERENCES "users" ("id") ON DELETE SET NULL, "created_at" INTEGER NOT NULL)
                """#)
            // Who said and who heard it, each by number and the name the adder typed; `user_id` is
            // the account that number signed up with, set then (or at once if it already had).
            try sql.execute(#"""
                CREATE TABLE "quote_people" ("quote_seq" INTEGER NOT NULL REFERENCES "quotes" ("seq") ON DELETE CASCADE, "position" INTEGER NOT NULL, "role" TEXT NOT NULL, "phone_number" TEXT NOT NULL, "user_id" TEXT REFERENCES "users" ("id") ON DELETE SET NULL, "book_name" TEXT NOT NULL, PRIMARY KEY ("quote_seq", "position"))
                """#)
            try sql.execute(#"CREATE INDEX "quote_people_number" ON "quote_people" ("phone_number")"#)
            try sql.execute(#"CREATE INDEX "quote_people_user" ON "quote_people" ("user_id", "role", "quote_seq")"#)
            // Who may see each quote: the adder and every sayer or hearer with an account. Every
            // read starts here, so no route can show a quote to anyone else.
            try sql.execute(#"""
                CREATE TABLE "quote_audience" ("user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "quote_seq" INTEGER NOT NULL REFERENCES "quotes" ("seq") ON DELETE CASCADE, PRIMARY KEY ("user_id", "quote_seq")) WITHOUT ROWID
                """#)
            try sql.execute(#"CREATE INDEX "quote_audience_quote" ON "quote_audience" ("quote_seq")"#)
            // Names from each person's own address book, by number: what they see for someone
            // who has not joined.
            try sql.execute(#"""
                CREATE TABLE "quote_contacts" ("owner_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE, "phone_number" TEXT NOT NULL, "name" TEXT NOT NULL, PRIMARY KEY ("owner_id", "phone_number")) WITHOUT ROWID
                """#)
            // Search as you type on an index: FTS5 trigrams over the text (any part of a word,
            // case-folded), kept by triggers. PostgreSQL has a pg_trgm GIN index on "text" instead.
            guard sql.kind == .sqlite else {
                try sql.createTrigramIndex("quotes_text_trgm", on: "quotes", column: "text")
                return
            }
            try sql.execute(script: """
                CREATE VIRTUAL TABLE quotes_search USING fts5(text, content='quotes', content_rowid='seq', tokenize='trigram');
                CREATE TRIGGER quotes_search_insert AFTER INSERT ON quotes BEGIN
                  INSERT INTO quotes_search (rowid, text) VALUES (new.seq, new.text);
                END;
                CREATE TRIGGER quotes_search_delete AFTER DELETE ON quotes BEGIN
                  INSERT INTO quotes_search (quotes_search, rowid, text) VALUES ('delete', old.seq, old.text);
                END;
                """)
        },
    ]
}
