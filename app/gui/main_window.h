// The main window: a central RHI viewport, dock areas, menus, recent files, drag-and-drop and the status bar.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <glm/glm.hpp>

#include "rig/model/pose.h"

class QLabel;
class QMenu;
class QProgressBar;
class QDockWidget;
class QToolBar;

namespace viewer {
class Viewport;
}
namespace panels {
class DiagnosisPanel;
class ComparePanel;
class AuditPanel;
class BonesPanel;
class MethodsPanel;
class WeightsPanel;
class MorphPanel;
class TimelinePanel;
}

namespace app {

class Document;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `api` is "vulkan" or "opengl".
    MainWindow(Document* doc, const QString& api, QWidget* parent = nullptr);
    ~MainWindow() override;

    viewer::Viewport* viewport() const { return m_viewport; }
    panels::BonesPanel* bonesPanel() const { return m_bones; }
    panels::MorphPanel* morphPanel() const { return m_morphs; }
    panels::TimelinePanel* timelinePanel() const { return m_timeline; }
    panels::AuditPanel* auditPanel() const { return m_audit; }
    panels::WeightsPanel* weightsPanel() const { return m_weights; }
    panels::DiagnosisPanel* diagnosisPanel() const { return m_diagnosis; }
    panels::ComparePanel* comparePanel() const { return m_compare; }
    /// The docks' short names (their objectName without "dock."), for --dock.
    static QStringList dockNames();
    /// Shows dock `name` (a dockNames() entry) at the front of its tabs; false for an unknown name.
    bool raiseDock(const QString& name);
    /// Brings the Weights dock to the front of its tabs.
    void raiseWeightsDock();
    /// Adds a file to the front of the recent list (persisted).
    void addRecentFile(const QString& path);
    QStringList recentFiles() const;
    /// The last load error shown to the user (empty if none).
    QString lastError() const { return m_lastError; }
    /// Saves the viewport's current image (exact swapchain pixels) as PNG; returns false with a message box on error.
    bool saveScreenshot(const QString& path, QString* error = nullptr);
    /// Saves the whole window as PNG: the widgets, with the viewport's image where the viewport is.
    bool saveWindowScreenshot(const QString& path, QString* error = nullptr);
    /// Reads a pose file and applies it; false with a one-line message naming the file and the problem.
    bool applyPoseFile(const QString& path, QString* error = nullptr);

    /// View ▸ Reset Layout: the docks where a first launch puts them, sized from their content.
    void resetLayout();

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildMenus();
    void buildDocks();
    /// The first launch's dock sizes (from the panels' content); needs the window's real size.
    void applyDefaultDockSizes();
    void fitTitleBar(QDockWidget* dock);
    void buildToolbar();
    void rebuildRecentMenu();
    void openFileDialog();
    /// File ▸ Compare With…: another version of the loaded rig (Document::compareWith).
    void compareDialog();
    void screenshotDialog();
    void loadPoseDialog();
    void scaleLines(float factor);
    void updateStatus();
    void updateTitle();
    void syncViewport();
    void onLoadFailed(const QString& message);
    /// A reference outside the asset root: ask whether to read it (once, for this file).
    void onLoadRefused(const QString& path, const QString& message, const QString& reference, const QString& resolved,
                       const QString& suggestedRoot);
    /// New background evaluation: frame bounds for the viewport (and frame once after a new rig), status bar.
    void onEvaluationChanged();
    /// F: the selection set, else the picked vertex, else everything.
    void frameSelection();

    Document* m_doc;
    viewer::Viewport* m_viewport = nullptr;
    QWidget* m_viewportContainer = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_statusFile = nullptr;
    QLabel* m_statusCounts = nullptr;
    QLabel* m_statusMethod = nullptr;
    QLabel* m_statusError = nullptr;
    QLabel* m_statusBounds = nullptr; ///< shown with the bounding box: the exact box and the per-bone one's size
    QLabel* m_statusFrame = nullptr;
    QProgressBar* m_progress = nullptr;
    QList<QDockWidget*> m_docks;
    QDockWidget* m_bonesDock = nullptr;
    QDockWidget* m_methodsDock = nullptr;
    QDockWidget* m_vertexDock = nullptr;
    QToolBar* m_timelineBar = nullptr;
    QByteArray m_defaultState;        ///< saveState() of the first launch's layout
    bool m_defaultSizesPending = false; ///< no saved layout: size the docks at the first show
    bool m_frameOnNextEvaluation = false;
    glm::vec3 m_frameMin{-1.0f}, m_frameMax{1.0f};
    QString m_lastError;
    panels::BonesPanel* m_bones = nullptr;
    panels::MorphPanel* m_morphs = nullptr;
    panels::TimelinePanel* m_timeline = nullptr;
    panels::AuditPanel* m_audit = nullptr;
    panels::MethodsPanel* m_methods = nullptr;
    panels::WeightsPanel* m_weights = nullptr;
    panels::DiagnosisPanel* m_diagnosis = nullptr;
    panels::ComparePanel* m_compare = nullptr;
    Qt::KeyboardModifiers m_pickModifiers;
    QAction* m_selectThrough = nullptr; ///< Edit ▸ Box Selects Through the Mesh
    int m_rotateGesture = 0;
    rig::JointEdit m_rotateStart;
};

} // namespace app
