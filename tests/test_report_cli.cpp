#include "testutil.h"
class T : public QObject { Q_OBJECT };
QTEST_GUILESS_MAIN(T)
#include "test_report_cli.moc"
