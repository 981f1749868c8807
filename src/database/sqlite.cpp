#include "database/sqlite.hpp"

#include <sqlite3.h>

#include "gl/error.hpp"

namespace glsurf::sql {

Connection::Connection(const std::string& path, Mode mode, int busy_ms) : path_(path) {
  const int flags = mode == Mode::ReadOnly    ? SQLITE_OPEN_READONLY
                    : mode == Mode::ReadWrite ? SQLITE_OPEN_READWRITE
                                              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path + ": cannot open the database (" + message + ")");
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_ms);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::fail(const std::string& what) const {
  throw Error(path_ + ": " + what + " (" + sqlite3_errmsg(db_) + ")");
}

void Connection::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(path_ + ": " + text);
  }
}

Statement Connection::prepare(const std::string& sql) { return Statement(*this, sql); }

int Connection::user_version() {
  Statement s(*this, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

void Connection::set_user_version(int version) { exec("PRAGMA user_version = " + std::to_string(version)); }

std::int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

Statement::Statement(Connection& connection, const std::string& sql) : connection_(&connection) {
  if (sqlite3_prepare_v2(connection.handle(), sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK)
    connection.fail("cannot read the database");
}

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_), statement_(other.statement_) {
  other.statement_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) connection_->fail("bind failed");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) connection_->fail("bind failed");
  return *this;
}

Statement& Statement::bind(int index, const std::string& text) {
  if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK)
    connection_->fail("bind failed");
  return *this;
}

Statement& Statement::bind_blob(int index, const void* data, std::size_t bytes) {
  // A zero-length blob is still a blob, not NULL.
  static const unsigned char nothing = 0;
  if (sqlite3_bind_blob64(statement_, index, bytes ? data : &nothing, bytes, SQLITE_TRANSIENT) != SQLITE_OK)
    connection_->fail("bind failed");
  return *this;
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) connection_->fail("bind failed");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_->fail(rc == SQLITE_READONLY ? "cannot write the database" : "database error");
}

void Statement::run() {
  step();
  reset();
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_, column); }
double Statement::real(int column) const { return sqlite3_column_double(statement_, column); }
bool Statement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::string Statement::text(int column) const {
  const unsigned char* t = sqlite3_column_text(statement_, column);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(statement_, column)))
           : std::string();
}

std::vector<unsigned char> Statement::blob(int column) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement_, column));
  const int bytes = sqlite3_column_bytes(statement_, column);
  return data ? std::vector<unsigned char>(data, data + bytes) : std::vector<unsigned char>();
}

Transaction::Transaction(Connection& connection) : connection_(connection) {
  connection_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(connection_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  connection_.exec("COMMIT");
  open_ = false;
}

}  // namespace glsurf::sql
