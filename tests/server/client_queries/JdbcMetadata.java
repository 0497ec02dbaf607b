// pgJDBC's start-up and DatabaseMetaData queries against a server (PostgreSQL or `shoal server`):
// connects, runs a query, and prints getTables / getColumns / getPrimaryKeys of the public schema
// as lines the integration test compares (tests/integration/server_catalog.mjs).
// Usage: java -cp /usr/share/java/postgresql.jar JdbcMetadata.java JDBC_URL USER
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

public class JdbcMetadata {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", args[1]);
    props.setProperty("sslmode", "disable");
    try (Connection c = DriverManager.getConnection(args[0], props)) {
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select 1")) {
        r.next();
        System.out.println("select " + r.getInt(1));
      }
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet r = md.getTables(null, "public", "%", new String[] {"TABLE", "VIEW"})) {
        while (r.next())
          System.out.println("table " + r.getString("TABLE_SCHEM") + "." + r.getString("TABLE_NAME")
                             + " " + r.getString("TABLE_TYPE"));
      }
      try (ResultSet r = md.getColumns(null, "public", "customers", "%")) {
        while (r.next())
          System.out.println("column " + r.getString("TABLE_NAME") + "." + r.getString("COLUMN_NAME")
                             + " " + r.getString("TYPE_NAME") + " " + r.getInt("DATA_TYPE") + " "
                             + r.getString("IS_NULLABLE") + " " + r.getInt("ORDINAL_POSITION"));
      }
      try (ResultSet r = md.getPrimaryKeys(null, "public", "customers")) {
        while (r.next())
          System.out.println("primary key " + r.getString("TABLE_NAME") + "." + r.getString("COLUMN_NAME")
                             + " " + r.getString("PK_NAME"));
      }
    }
  }
}
