import TandemSynchronization

/// The queue in its own SQLite file in the data folder (`webhooks.sqlite`), apart from the rooms'
/// database so that a backlog of events never slows the rooms' commits. Each `add` is one transaction
/// with `synchronous=FULL`: once it returns, the deliveries survive a crash of the process or machine.
/// Removals and reschedules are not fsynced (`synchronous=NORMAL`; WAL keeps them atomic): a power cut
/// can only undo them, and an undone removal means the event is sent again, which at-least-once allows.
/// Fsyncing each removal would make it about 40 times slower (18 µs against 700 µs here).
///
/// Thread-safety: the connection is only touched under `lock` (hence `@unchecked Sendable`).
package final class SQLiteWebhookQueue: WebhookQueue, @unchecked Sendable {
    private let database: SQLiteDatabase
    private let lock = Locked(())

    /// Opens (creating if needed) the queue at `path`.
    /// - Throws: `WebhookQueueError` naming the file and SQLite's reason.
    package init(path: String) throws(WebhookQueueError) {
        do throws(SQLiteError) {
            let database = try SQLiteDatabase(path: path)
            try database.execute("""
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=NORMAL;
            CREATE TABLE IF NOT EXISTS deliveries (
              seq INTEGER PRIMARY KEY AUTOINCREMENT, endpoint TEXT NOT NULL, room TEXT NOT NULL, event TEXT NOT NULL,
              body BLOB NOT NULL, created INTEGER NOT NULL, failures INTEGER NOT NULL, due INTEGER NOT NULL);
            """)
            self.database = database
        } catch {
            throw WebhookQueueError("the webhook queue \(path) cannot be opened: \(error.description)")
        }
    }

    package func add(_ deliveries: [WebhookDelivery]) throws(WebhookQueueError) -> [WebhookDelivery] {
        try run("add") { (database) throws(SQLiteError) in
            try database.execute("PRAGMA synchronous=FULL")
            defer { try? database.execute("PRAGMA synchronous=NORMAL") }
            return try database.transaction { () throws(SQLiteError) in
                let insert = try database.prepare("INSERT INTO deliveries (endpoint, room, event, body, created, failures, due) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq")
                var stored: [WebhookDelivery] = []
                for delivery in deliveries {
                    insert.reset()
                    try insert.bind(delivery.endpoint, at: 1)
                    try insert.bind(delivery.room, at: 2)
                    try insert.bind(delivery.eventID, at: 3)
                    try insert.bind(delivery.body, at: 4)
                    try insert.bind(delivery.created, at: 5)
                    try insert.bind(Int64(delivery.failures), at: 6)
                    try insert.bind(delivery.due, at: 7)
                    guard try insert.step() else { throw SQLiteError(code: 1, operation: "insert", message: "no seq returned") }
                    var copy = delivery
                    copy.seq = insert.int64(at: 0)
                    _ = try insert.step()
                    stored.append(copy)
                }
                return stored
            }
        }
    }

    package func remove(seq: Int64) throws(WebhookQueueError) {
        try run("remove") { (database) throws(SQLiteError) in
            let delete = try database.prepare("DELETE FROM deliveries WHERE seq = ?")
            try delete.bind(seq, at: 1)
            _ = try delete.step()
        }
    }

    package func reschedule(seq: Int64, failures: Int, due: Int64) throws(WebhookQueueError) {
        try run("reschedule") { (database) throws(SQLiteError) in
            let update = try database.prepare("UPDATE deliveries SET failures = ?, due = ? WHERE seq = ?")
            try update.bind(Int64(failures), at: 1)
            try update.bind(due, at: 2)
            try update.bind(seq, at: 3)
            _ = try update.step()
        }
    }

    package func pending() throws(WebhookQueueError) -> [WebhookDelivery] {
        try run("read") { (database) throws(SQLiteError) in
            let select = try database.prepare("SELECT seq, endpoint, room, event, body, created, failures, due FROM deliveries ORDER BY seq")
            var deliveries: [WebhookDelivery] = []
            while try select.step() {
                deliveries.append(WebhookDelivery(seq: select.int64(at: 0), endpoint: select.text(at: 1) ?? "", room: select.text(at: 2) ?? "",
                                                  eventID: select.text(at: 3) ?? "", body: select.blob(at: 4), created: select.int64(at: 5),
                                                  failures: Int(select.int64(at: 6)), due: select.int64(at: 7)))
            }
            return deliveries
        }
    }

    private func run<Value>(_ operation: String, _ body: (SQLiteDatabase) throws(SQLiteError) -> Value) throws(WebhookQueueError) -> Value {
        do throws(SQLiteError) {
            return try lock.withLock { (_) throws(SQLiteError) -> Value in try body(database) }
        } catch {
            throw WebhookQueueError("the webhook queue could not \(operation): \(error.description)")
        }
    }
}
