// The 22 TPC-H queries through pgJDBC (issue 14): each query a PreparedStatement run with a
// fetch size inside a transaction (autocommit off), so pgJDBC reads the rows in steps through a
// portal with a row limit (Execute ... PortalSuspended) instead of all at once. Prints one JSON
// line per query: {"query": "q01", "header": [...], "rows": [[...], ...]} (values as getString
// gives them, SQL NULL as null), or {"query": ..., "error": "..."}.
//
// Usage: java -cp /usr/share/java/postgresql.jar TpchJdbc.java JDBC_URL USER QUERY_FILE...
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Properties;

public class TpchJdbc {
  static String Json(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        default:
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
      }
    }
    return b.append('"').toString();
  }

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", args[1]);
    try (Connection conn = DriverManager.getConnection(args[0], props)) {
      conn.setAutoCommit(false);  // fetchSize streams only inside a transaction
      for (int i = 2; i < args.length; ++i) {
        Path file = Path.of(args[i]);
        String name = file.getFileName().toString().replace(".sql", "");
        String sql = Files.readString(file).trim();
        if (sql.endsWith(";")) sql = sql.substring(0, sql.length() - 1);
        StringBuilder out = new StringBuilder("{\"query\": " + Json(name));
        try (PreparedStatement st = conn.prepareStatement(sql)) {
          st.setFetchSize(50);
          try (ResultSet rs = st.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            out.append(", \"header\": [");
            for (int c = 1; c <= md.getColumnCount(); ++c) {
              out.append(c > 1 ? ", " : "").append(Json(md.getColumnLabel(c)));
            }
            out.append("], \"rows\": [");
            boolean first = true;
            while (rs.next()) {
              out.append(first ? "[" : ", [");
              first = false;
              for (int c = 1; c <= md.getColumnCount(); ++c) {
                out.append(c > 1 ? ", " : "").append(Json(rs.getString(c)));
              }
              out.append("]");
            }
            out.append("]}");
          }
          conn.commit();
        } catch (SQLException e) {
          conn.rollback();
          out = new StringBuilder("{\"query\": " + Json(name) + ", \"error\": " +
                                  Json(e.getSQLState() + " " + e.getMessage()) + "}");
        }
        System.out.println(out);
      }
    }
  }
}
