// Recovering Dear ImGui's stacks when a panel throws mid-frame. The shell marks the point
// before a panel draws (inside the lab's child window); after an exception it ends exactly
// what the panel began (windows, popups, tables, tab bars, trees, groups, IDs, styles)
// and nothing the shell itself began (its tab bar, tab item and child stay open).
#pragma once

struct ImGuiWindow;
struct ImGuiTable;

namespace poslab::app {

// ImGui's stack depths at one point of a frame.
struct ImGuiScopeMark {
  ImGuiWindow* window = nullptr;  // current window at the mark
  ImGuiTable* table = nullptr;    // current table at the mark (tables the panel opens end)
  int window_stack = 0;           // g.CurrentWindowStack.Size
  int tab_bar_stack = 0;          // g.CurrentTabBarStack.Size
  int id_stack = 0;               // window->IDStack.Size
  int tree_depth = 0;             // window->DC.TreeDepth
  int item_width_stack = 0;       // window->DC.ItemWidthStack.Size
  int wrap_pos_stack = 0;         // window->DC.TextWrapPosStack.Size
  int color_stack = 0;            // g.ColorStack.Size
  int style_var_stack = 0;        // g.StyleVarStack.Size
  int font_stack = 0;             // g.FontStack.Size
  int focus_scope_stack = 0;      // g.FocusScopeStack.Size
  int group_stack = 0;            // g.GroupStack.Size
  int item_flags_stack = 0;       // g.ItemFlagsStack.Size
  int popup_stack = 0;            // g.BeginPopupStack.Size
  int disabled_stack = 0;         // g.DisabledStackSize
};

// The stacks as they are now.
ImGuiScopeMark imgui_scope_mark();
// Ends everything begun since `mark` (innermost first) so the current window is the mark's
// window again with the same stack depths. Returns false if the stacks are below the mark
// (something ended more than it began); nothing is ended then.
bool imgui_unwind_to(const ImGuiScopeMark& mark);

}  // namespace poslab::app
