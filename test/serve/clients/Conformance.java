import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.postgresql.PGStatement;

/**
 * pgJDBC against `efa-sync serve`, doing what DBeaver and Metabase do on connect and while browsing, and
 * checking every answer against the reference psql gave (not only that no exception came). One JSON line per
 * check on stdout: {"aspect", "check", "ok", "expected", "got"}. Run by test/serve/clients/clients.test.ts as
 * `java -cp postgresql.jar Conformance.java <port>` with the reference in $EFA_CLIENTS_REFERENCE.
 */
public class Conformance {
  static String port;
  static long pins;
  static String umlaut;
  static String keysMd5;

  public static void main(String[] args) throws Exception {
    port = args[0];
    String ref = System.getenv("EFA_CLIENTS_REFERENCE");
    pins = Long.parseLong(field(ref, "pins"));
    umlaut = field(ref, "umlaut");
    keysMd5 = field(ref, "keysMd5");
    // currentSchema: pgJDBC sends it as search_path in the startup packet (DBeaver's "default schema").
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&sslmode=disable&currentSchema=efa&ApplicationName=efa-conformance";
    Connection c;
    try {
      c = DriverManager.getConnection(url);
      check("connect", "connects", "PostgreSQL", c.getMetaData().getDatabaseProductName());
    } catch (SQLException e) {
      fail("connect", "connects", e);
      return;
    }
    step("connect", "currentSchema=efa in the URL: current_schema()", () -> check("connect", "currentSchema=efa in the URL: current_schema()", "efa", one(c, "select current_schema()")));
    step("introspect", "DatabaseMetaData", () -> introspect(c.getMetaData()));
    step("rows", "before an error", () -> fiveQueries(c, "rows", ""));
    c.close();
    // Each aspect on its own connection, so one that leaves the session wrong does not fail the next as well.
    Connection pooled = DriverManager.getConnection(url);
    step("pool_cursor", "PreparedStatement run 10 times", () -> {
      try (PreparedStatement ps = pooled.prepareStatement("select ?::int * 2 as d, count(*) from efa.pins")) {
        List<String> got = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
          ps.setInt(1, i);
          try (ResultSet rs = ps.executeQuery()) {
            got.add(rs.next() ? rs.getString(1) + "/" + rs.getString(2) : "no row");
          }
          expected.add((2 * i) + "/" + pins);
        }
        check("pool_cursor", "PreparedStatement run 10 times: each answer", String.join(",", expected), String.join(",", got));
        check("pool_cursor", "PreparedStatement prepared server-side (prepareThreshold 5)", "true", String.valueOf(ps.unwrap(PGStatement.class).isUseServerPrepare()));
      }
      check("pool_cursor", "select 'A' after the server-prepared statement", "A", one(pooled, "select 'A'"));
    });
    step("pool_cursor", "setFetchSize with autocommit off", () -> {
      pooled.setAutoCommit(false);
      try (Statement st = pooled.createStatement()) {
        st.setFetchSize(500);
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        long n = 0;
        String interleaved = "not run";
        try (ResultSet rs = st.executeQuery("select pin_key from efa.pins order by pin_key")) {
          while (rs.next()) {
            md5.update(((n == 0 ? "" : ",") + rs.getString(1)).getBytes(StandardCharsets.UTF_8));
            n++;
            // DBeaver runs metadata queries while a result set is still open: the portal must survive them.
            if (n == 700) interleaved = one(pooled, "select 'A'");
          }
        }
        check("pool_cursor", "fetch size 500: rows", String.valueOf(pins), String.valueOf(n));
        check("pool_cursor", "fetch size 500: md5 of the keys in order", keysMd5, String.format("%032x", new BigInteger(1, md5.digest())));
        check("pool_cursor", "fetch size 500: select 'A' between two fetches", "A", interleaved);
      }
      pooled.commit();
      pooled.setAutoCommit(true);
    });
    step("pool_cursor", "Metabase's query connection", () -> {
      // What Metabase does before running a question: read-only, its best isolation level, no autocommit, a row limit.
      pooled.setReadOnly(true);
      pooled.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
      pooled.setAutoCommit(false);
      try (Statement st = pooled.createStatement()) {
        st.setMaxRows(2000);
        st.setFetchDirection(ResultSet.FETCH_FORWARD);
        long n = 0;
        try (ResultSet rs = st.executeQuery("select pin_key from efa.pins order by pin_key")) {
          while (rs.next()) n++;
        }
        check("pool_cursor", "read-only, READ UNCOMMITTED, no autocommit, setMaxRows(2000): rows", String.valueOf(Math.min(2000, pins)), String.valueOf(n));
      }
      pooled.commit();
      pooled.setAutoCommit(true);
      check("pool_cursor", "after Metabase's settings: select 'A'", "A", one(pooled, "select 'A'"));
    });
    pooled.close();
    Connection failing = DriverManager.getConnection(url);
    step("after_error", "select 1/0 then five queries", () -> {
      expectError(failing, "after_error", "select 1/0", "22012");
      fiveQueries(failing, "after_error", " after select 1/0");
    });
    step("after_error", "prepared select 1/? with 0 then with 1", () -> {
      try (PreparedStatement ps = failing.prepareStatement("select 1/?::int")) {
        ps.setInt(1, 0);
        try (ResultSet rs = ps.executeQuery()) {
          check("after_error", "prepared select 1/? with 0: SQLSTATE", "22012", "no error");
        } catch (SQLException e) {
          check("after_error", "prepared select 1/? with 0: SQLSTATE", "22012", e.getSQLState());
        }
        ps.setInt(1, 1);
        try (ResultSet rs = ps.executeQuery()) {
          check("after_error", "prepared select 1/? with 1 after it failed with 0", "1", rs.next() ? rs.getString(1) : "no row");
        }
      }
      check("after_error", "select 'A' after the prepared error", "A", one(failing, "select 'A'"));
    });
    step("after_error", "syntax error", () -> {
      expectError(failing, "after_error", "selec 1", "42601");
      check("after_error", "select 'B' after selec 1", "B", one(failing, "select 'B'"));
    });
    step("after_error", "refused write", () -> {
      expectError(failing, "after_error", "create table efa.conformance_x (i int)", "42501|25006");
      check("after_error", "select 'C' after a refused create table", "C", one(failing, "select 'C'"));
    });
    step("after_error", "error in a transaction, then rollback()", () -> {
      failing.setAutoCommit(false);
      check("after_error", "in a transaction: select 'A'", "A", one(failing, "select 'A'"));
      expectError(failing, "after_error", "in a transaction: select 1/0", "22012");
      expectError(failing, "after_error", "in the failed transaction: select 'B'", "25P02");
      failing.rollback();
      check("after_error", "after rollback(): select 'C'", "C", one(failing, "select 'C'"));
      check("after_error", "after rollback(): count(*) from efa.pins", String.valueOf(pins), one(failing, "select count(*) from efa.pins"));
      failing.commit();
      failing.setAutoCommit(true);
    });
    failing.close();
  }

  static void introspect(DatabaseMetaData md) throws SQLException {
    check("introspect", "getSchemas has efa", "true", String.valueOf(names(md.getSchemas(), "TABLE_SCHEM").contains("efa")));
    check("introspect", "getCatalogs", "postgres", String.join(",", names(md.getCatalogs(), "TABLE_CAT")));
    TreeSet<String> tables = names(md.getTables(null, "efa", "%", new String[] {"TABLE", "PARTITIONED TABLE"}), "TABLE_NAME");
    check("introspect", "getTables(TABLE) has pins and runs", "true", String.valueOf(tables.contains("pins") && tables.contains("runs")));
    TreeSet<String> views = names(md.getTables(null, "efa", "%", new String[] {"VIEW", "MATERIALIZED VIEW"}), "TABLE_NAME");
    check("introspect", "getTables(VIEW) has stops", "true", String.valueOf(views.contains("stops")));
    TreeSet<String> columns = new TreeSet<>();
    String geomType = "missing";
    try (ResultSet rs = md.getColumns(null, "efa", "pins", "%")) {
      while (rs.next()) {
        columns.add(rs.getString("COLUMN_NAME"));
        // pgJDBC qualifies a type outside the search path ("public"."geometry" with currentSchema=efa)
        if (rs.getString("COLUMN_NAME").equals("geom")) geomType = rs.getString("TYPE_NAME").replace("\"", "").replaceFirst("^public\\.", "");
      }
    }
    check("introspect", "getColumns(pins) has pin_key, name, geom", "true", String.valueOf(columns.containsAll(List.of("pin_key", "name", "geom"))));
    check("introspect", "getColumns(pins): geom's type", "geometry", geomType);
    check("introspect", "getPrimaryKeys(pins)", "fid", String.join(",", names(md.getPrimaryKeys(null, "efa", "pins"), "COLUMN_NAME")));
    check("introspect", "getImportedKeys(stop_lines)", "lines", String.join(",", names(md.getImportedKeys(null, "efa", "stop_lines"), "PKTABLE_NAME")));
    check("introspect", "getIndexInfo(pins) has pins_geom_gix", "true", String.valueOf(names(md.getIndexInfo(null, "efa", "pins", false, true), "INDEX_NAME").contains("pins_geom_gix")));
    TreeSet<String> types = names(md.getTypeInfo(), "TYPE_NAME");
    check("introspect", "getTypeInfo has int4, text, geometry", "true", String.valueOf(types.containsAll(List.of("int4", "text", "geometry"))));
    check("introspect", "getFunctions(st_astext) found", "true", String.valueOf(!names(md.getFunctions(null, "public", "st_astext"), "FUNCTION_NAME").isEmpty()));
  }

  /** The five checked queries of the acceptance: three literals, a count as psql gives it, a name with an umlaut. */
  static void fiveQueries(Connection c, String aspect, String suffix) throws SQLException {
    check(aspect, "select 'A'" + suffix, "A", one(c, "select 'A'"));
    check(aspect, "select 'B'" + suffix, "B", one(c, "select 'B'"));
    check(aspect, "select 'C'" + suffix, "C", one(c, "select 'C'"));
    check(aspect, "count(*) from efa.pins" + suffix, String.valueOf(pins), one(c, "select count(*) from efa.pins"));
    check(aspect, "a stop name with an umlaut" + suffix, umlaut, one(c, "select name from efa.stops where name like '%\u00fc%' order by stop_id limit 1"));
  }

  static void expectError(Connection c, String aspect, String sql, String states) {
    String sqlText = sql.replaceFirst("^[^:]*: ", "");
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sqlText)) {
      check(aspect, sql + ": SQLSTATE", states, "no error: " + (rs.next() ? rs.getString(1) : "no row"));
    } catch (SQLException e) {
      String state = e.getSQLState();
      check(aspect, sql + ": SQLSTATE", states, state != null && state.matches(states) ? states : state + " " + e.getMessage());
    }
  }

  /** The first value of a query's answer, or what went wrong instead (so each query is its own check). */
  static String one(Connection c, String sql) {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : "no row";
    } catch (SQLException e) {
      return "error " + e.getSQLState() + " " + e.getMessage();
    } catch (RuntimeException e) {
      return "driver exception " + e;
    }
  }

  static TreeSet<String> names(ResultSet rs, String column) throws SQLException {
    TreeSet<String> out = new TreeSet<>();
    try (rs) {
      while (rs.next()) out.add(rs.getString(column));
    }
    return out;
  }

  interface Step {
    void run() throws Exception;
  }

  /** A step that throws is a failed check of its aspect (the exception is what a user would see). */
  static void step(String aspect, String name, Step s) {
    try {
      s.run();
    } catch (Exception e) {
      fail(aspect, name, e);
    }
  }

  static void check(String aspect, String name, String expected, String got) {
    emit(aspect, name, Objects.equals(expected, got), expected, got);
  }

  static void fail(String aspect, String name, Exception e) {
    String state = e instanceof SQLException ? ((SQLException) e).getSQLState() + " " : "";
    emit(aspect, name + ": no exception", false, "no exception", state + e);
  }

  static void emit(String aspect, String name, boolean ok, String expected, String got) {
    System.out.println("{\"aspect\":" + json(aspect) + ",\"check\":" + json(name) + ",\"ok\":" + ok + ",\"expected\":" + json(expected) + ",\"got\":" + json(got) + "}");
    System.out.flush();
  }

  static String json(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') b.append('\\').append(ch);
      else if (ch < 0x20 || ch > 0x7e) b.append(String.format("\\u%04x", (int) ch)); // ASCII out, whatever the locale
      else b.append(ch);
    }
    return b.append('"').toString();
  }

  /** A string or number field of the flat reference object (no JSON library on the JRE's class path). */
  static String field(String json, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\"\\s*:\\s*(\"((?:[^\"\\\\]|\\\\.)*)\"|(-?\\d+))").matcher(json);
    if (!m.find()) throw new IllegalArgumentException("reference without " + name);
    if (m.group(3) != null) return m.group(3);
    // The harness writes the reference in ASCII (\\uXXXX escapes): the environment's encoding is the locale's.
    java.util.regex.Matcher esc = java.util.regex.Pattern.compile("\\\\(u([0-9a-fA-F]{4})|.)").matcher(m.group(2));
    StringBuilder out = new StringBuilder();
    while (esc.find()) esc.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(esc.group(2) != null ? String.valueOf((char) Integer.parseInt(esc.group(2), 16)) : esc.group(1)));
    esc.appendTail(out);
    return out.toString();
  }
}
