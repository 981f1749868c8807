// A thin RAII layer over SQLite's C API: a connection, prepared statements
// and transactions, every failure a glsurf::Error naming the database file.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace glsurf::sql {

class Statement;

class Connection {
 public:
  enum class Mode { ReadOnly, ReadWrite, Create };
  // Waits up to `busy_ms` for another connection's lock before a statement
  // fails with "database is locked".
  Connection(const std::string& path, Mode mode, int busy_ms = 5000);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  // PRAGMA user_version.
  int user_version();
  void set_user_version(int version);
  std::int64_t last_insert_rowid() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }
  // Throws glsurf::Error "PATH: WHAT (SQLite's message)".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement: bind by 1-based index, step, read columns.
class Statement {
 public:
  Statement(Connection& connection, const std::string& sql);
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& text);
  Statement& bind_blob(int index, const void* data, std::size_t bytes);  // copied
  Statement& bind_null(int index);
  // True while a row is ready; false when done.
  bool step();
  // Steps a statement that returns no rows, then resets it for the next binds.
  void run();
  void reset();

  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;
  // A blob column: its bytes.
  std::vector<unsigned char> blob(int column) const;
  template <typename T>
  std::vector<T> blob_as(int column) const;

 private:
  Connection* connection_;
  sqlite3_stmt* statement_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed uncommitted (an
// exception): either all its writes land or none.
class Transaction {
 public:
  explicit Transaction(Connection& connection);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

template <typename T>
std::vector<T> Statement::blob_as(int column) const {
  const std::vector<unsigned char> bytes = blob(column);
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace glsurf::sql
