// Ends what a throwing panel left open (app/imgui_unwind.hpp). ImGui's own
// ErrorCheckEndWindowRecover cannot be used inside the shell's tab bar: it ends every tab bar
// of the context, including the shell's, from inside the lab's child window, and pops that
// child's ID stack below its base (an ImGui assertion, kept on in Debian's build). Here each
// construct is ended in the window that began it, innermost first, down to the mark.
#include "app/imgui_unwind.hpp"

#include <imgui.h>
#include <imgui_internal.h>

namespace poslab::app {
namespace {

ImGuiTabBar* tab_bar_from_ref(const ImGuiPtrOrIndex& ref) {
  ImGuiContext& g = *GImGui;
  return ref.Ptr ? static_cast<ImGuiTabBar*>(ref.Ptr) : g.TabBars.GetByIndex(ref.Index);
}

// Position of `id` in the window's ID stack at or above `base`, or -1.
int id_position(ImGuiWindow* w, ImGuiID id, int base) {
  for (int i = w->IDStack.Size - 1; i >= base; --i)
    if (w->IDStack[i] == id) return i;
  return -1;
}

// Pops the current window's stacks down to the given depths: trees and IDs to `id_floor`,
// global stacks (groups, disabled, item flags, colours, style vars, fonts, focus scopes) to
// `s`. ImGui checks these when a window ends, so they go before any End.
void pop_stacks(const ImGuiStackSizes& s, int id_floor, int tree_floor) {
  ImGuiContext& g = *GImGui;
  ImGuiWindow* w = g.CurrentWindow;
  while (w->DC.TreeDepth > tree_floor && w->IDStack.Size > id_floor) ImGui::TreePop();
  while (g.GroupStack.Size > s.SizeOfGroupStack) ImGui::EndGroup();
  while (w->IDStack.Size > id_floor) ImGui::PopID();
  while (g.DisabledStackSize > s.SizeOfDisabledStack) ImGui::EndDisabled();
  while (g.ItemFlagsStack.Size > s.SizeOfItemFlagsStack) ImGui::PopItemFlag();
  if (g.ColorStack.Size > s.SizeOfColorStack)
    ImGui::PopStyleColor(g.ColorStack.Size - s.SizeOfColorStack);
  if (g.StyleVarStack.Size > s.SizeOfStyleVarStack)
    ImGui::PopStyleVar(g.StyleVarStack.Size - s.SizeOfStyleVarStack);
  while (g.FontStack.Size > s.SizeOfFontStack) ImGui::PopFont();
  while (g.FocusScopeStack.Size > s.SizeOfFocusScopeStack) ImGui::PopFocusScope();
}

// Ends, innermost first, the tables and tab bars begun in the current window above the
// floors, then pops its stacks to `s` / `id_floor`. Each of these constructs pushes its ID on
// the window that began it, so its position in that ID stack says which is innermost.
// Returns false if a table's inner child window was ended (the current window changed).
bool end_in_window(const ImGuiStackSizes& s, int id_floor, int tree_floor,
                   const ImGuiTable* keep_table, int tab_bar_floor) {
  ImGuiContext& g = *GImGui;
  ImGuiWindow* w = g.CurrentWindow;
  for (;;) {
    ImGuiTable* t = g.CurrentTable;
    const bool table_here = t && t != keep_table && (t->InnerWindow == w || t->OuterWindow == w);
    const int table_at = table_here ? id_position(w, t->ID + t->InstanceCurrent, id_floor) : -1;
    ImGuiTabBar* b = g.CurrentTabBarStack.Size > tab_bar_floor ? g.CurrentTabBar : nullptr;
    const int bar_at = b ? id_position(w, b->ID, id_floor) : -1;
    if (!table_here && bar_at < 0) break;
    if (table_here && table_at >= bar_at) {
      pop_stacks(s, table_at >= 0 ? table_at + 1 : w->IDStack.Size, tree_floor);
      ImGui::EndTable();  // a scrolling table ends its inner child window too
      if (g.CurrentWindow != w) return false;
      continue;
    }
    pop_stacks(s, bar_at + 1, tree_floor);  // its open tab item, trees and IDs go first
    if (!w->SkipItems) {
      ImGui::EndTabBar();
    } else {  // EndTabBar returns early in a skipped window: do its bookkeeping
      ImGui::PopID();
      g.CurrentTabBarStack.pop_back();
      g.CurrentTabBar =
          g.CurrentTabBarStack.empty() ? nullptr : tab_bar_from_ref(g.CurrentTabBarStack.back());
    }
  }
  pop_stacks(s, id_floor, tree_floor);
  return true;
}

}  // namespace

ImGuiScopeMark imgui_scope_mark() {
  ImGuiContext& g = *GImGui;
  ImGuiWindow* w = g.CurrentWindow;
  ImGuiScopeMark m;
  m.window = w;
  m.table = g.CurrentTable;
  m.window_stack = g.CurrentWindowStack.Size;
  m.tab_bar_stack = g.CurrentTabBarStack.Size;
  m.id_stack = w->IDStack.Size;
  m.tree_depth = w->DC.TreeDepth;
  m.item_width_stack = w->DC.ItemWidthStack.Size;
  m.wrap_pos_stack = w->DC.TextWrapPosStack.Size;
  m.color_stack = g.ColorStack.Size;
  m.style_var_stack = g.StyleVarStack.Size;
  m.font_stack = g.FontStack.Size;
  m.focus_scope_stack = g.FocusScopeStack.Size;
  m.group_stack = g.GroupStack.Size;
  m.item_flags_stack = g.ItemFlagsStack.Size;
  m.popup_stack = g.BeginPopupStack.Size;
  m.disabled_stack = g.DisabledStackSize;
  return m;
}

bool imgui_unwind_to(const ImGuiScopeMark& mark) {
  ImGuiContext& g = *GImGui;
  if (mark.window_stack < 1 || g.CurrentWindowStack.Size < mark.window_stack ||
      g.CurrentWindowStack[mark.window_stack - 1].Window != mark.window)
    return false;
  // Windows the panel began (children, popups, menus, combos, tooltips), innermost first.
  while (g.CurrentWindowStack.Size > mark.window_stack) {
    ImGuiWindow* w = g.CurrentWindow;
    const ImGuiStackSizes sizes = g.CurrentWindowStack.back().StackSizesOnBegin;
    if (!end_in_window(sizes, sizes.SizeOfIDStack, 0, mark.table, mark.tab_bar_stack))
      continue;  // a table's inner window was ended
    if (w->Flags & ImGuiWindowFlags_Popup)
      ImGui::EndPopup();
    else if (w->Flags & ImGuiWindowFlags_ChildWindow)
      ImGui::EndChild();
    else
      ImGui::End();
  }
  // The mark's own window: back to the depths at the mark.
  ImGuiStackSizes s;
  s.SizeOfIDStack = static_cast<short>(mark.id_stack);
  s.SizeOfColorStack = static_cast<short>(mark.color_stack);
  s.SizeOfStyleVarStack = static_cast<short>(mark.style_var_stack);
  s.SizeOfFontStack = static_cast<short>(mark.font_stack);
  s.SizeOfFocusScopeStack = static_cast<short>(mark.focus_scope_stack);
  s.SizeOfGroupStack = static_cast<short>(mark.group_stack);
  s.SizeOfItemFlagsStack = static_cast<short>(mark.item_flags_stack);
  s.SizeOfBeginPopupStack = static_cast<short>(mark.popup_stack);
  s.SizeOfDisabledStack = static_cast<short>(mark.disabled_stack);
  if (!end_in_window(s, mark.id_stack, mark.tree_depth, mark.table, mark.tab_bar_stack))
    return false;
  ImGuiWindow* w = g.CurrentWindow;
  while (w->DC.ItemWidthStack.Size > mark.item_width_stack) ImGui::PopItemWidth();
  while (w->DC.TextWrapPosStack.Size > mark.wrap_pos_stack) ImGui::PopTextWrapPos();
  return g.CurrentWindow == mark.window;
}

}  // namespace poslab::app
