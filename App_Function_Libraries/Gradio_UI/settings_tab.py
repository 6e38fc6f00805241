"""Settings tab: LLM providers, base URLs and models per role, search engine endpoints and keys, Test buttons.

Keys are write-only here: a key field is always empty, its placeholder says "(set)" or "(not set)", and a
saved key never travels back to the browser. Saving writes the config file in use and reloads the settings.
"""
from __future__ import annotations

import gradio as gr
from gradio.components.textbox import InputHTMLAttributes

from App_Function_Libraries.config import ENGINES, LLM_ROLES, ROLE_SECTION_PREFIX, Settings, masked
from App_Function_Libraries.Gradio_UI import settings_form as form
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, user_errors

MARK = {True: "✓ OK", False: "✗ failed", None: "– not configured"}


def settings_markdown(settings: Settings) -> str:
    lines = [f"**Config file:** `{settings.path}`", ""]
    for section, values in masked(settings).items():
        lines.append(f"**[{section}]**  ")
        lines += [f"`{k}` = `{v}`  " for k, v in values.items()]
        lines.append("")
    return "\n".join(lines)


def verdict_markdown(verdicts) -> str:
    """One line per check; a message can quote a server (its error, its model names), shown as text."""
    from App_Function_Libraries.Gradio_UI.answer_view import md_text
    return "\n".join(f"{MARK[v.ok]} **{v.name}**: {md_text(v.message)}" for v in verdicts)


def status_table(settings: Settings) -> list[list[str]]:
    from App_Function_Libraries.status import status_lines
    return [[v.name, MARK[v.ok], v.message] for v in status_lines(settings)]


@user_errors
def test_llm(scope: str) -> str:
    from App_Function_Libraries.status import check_llm_role
    settings = current_settings()
    roles = LLM_ROLES if scope == "llm" else (scope[len(ROLE_SECTION_PREFIX):],)
    return verdict_markdown([check_llm_role(settings, role) for role in roles])


@user_errors
def test_engine(engine: str) -> str:
    from App_Function_Libraries.status import check_engine
    return verdict_markdown([check_engine(current_settings(), engine)])


@user_errors
def test_all() -> list[list[str]]:
    return status_table(current_settings())


@user_errors
def refresh_health() -> list[list[str]]:
    from App_Function_Libraries.Gradio_UI.engine_health import health_rows
    return health_rows(current_settings())


@user_errors
def resume_engines() -> list[list[str]]:
    from App_Function_Libraries.Gradio_UI.engine_health import health_rows, resume_all_engines
    resume_all_engines()
    gr.Info("Suspensions lifted: the next search tries every engine again.")
    return health_rows(current_settings())


def form_updates(settings: Settings, fields: list[form.FieldSpec]) -> list:
    """New values for every field component: key fields emptied with a fresh (set)/(not set) placeholder."""
    raw = form.file_values(settings.path)
    out = []
    for spec in fields:
        if spec.secret:
            out.append(gr.Textbox(value="", placeholder=form.key_placeholder(spec, settings, raw)))
        else:
            out.append(form.field_value(spec, settings, raw))
    return out


def shown_now(fields: list[form.FieldSpec]) -> list:
    """The settings in force (the config file as last saved), for the page being opened."""
    settings = current_settings()
    return [settings_markdown(settings)] + form_updates(settings, fields)


def dropdown_width(spec: form.FieldSpec) -> int:
    """Pixels wide enough for the longest choice label (or the field's label) and the dropdown's arrow."""
    texts = [c[0] if isinstance(c, tuple) else c for c in spec.choices] + [spec.label]
    return max(120, 9 * max(len(t) for t in texts) + 48)


def build_field(spec: form.FieldSpec, settings: Settings, raw: dict) -> gr.components.Component:
    elem_id = f"set-{spec.section}-{spec.key}".replace("_", "-")
    if spec.kind == "bool":
        return gr.Checkbox(value=form.field_value(spec, settings, raw), label=spec.label, elem_id=elem_id)
    if spec.choices:
        return gr.Dropdown(list(spec.choices), value=form.shown_value(spec, settings, raw), label=spec.label,
                           elem_id=elem_id, min_width=dropdown_width(spec))
    if spec.secret:
        return gr.Textbox(value="", label=spec.label, type="password", elem_id=elem_id,
                          placeholder=form.key_placeholder(spec, settings, raw),
                          html_attributes=InputHTMLAttributes(autocomplete="new-password", spellcheck=False))
    return gr.Textbox(value=form.shown_value(spec, settings, raw), label=spec.label, elem_id=elem_id,
                      max_lines=1)


def build_llm_section(settings: Settings, raw: dict) -> list:
    components = []
    gr.Markdown("An empty role value inherits the default. Provider `none` answers extractively "
                "(no model needed). **Test** checks the saved settings.")
    for scope in form.LLM_SCOPES:
        with gr.Group():
            with gr.Row(equal_height=True):
                gr.Markdown(f"**{form.scope_title(scope)}**", min_height=0)
                for spec in form.llm_fields(scope):
                    components.append(build_field(spec, settings, raw))
                test = gr.Button("Test", size="sm", scale=0, min_width=70,
                                 elem_id=f"set-test-{scope}".replace("_", "-"))
            verdict = gr.Markdown(elem_id=f"set-verdict-{scope}".replace("_", "-"))
        test.click(lambda s=scope: test_llm(s), outputs=verdict)
    return components


def build_engine_section(settings: Settings, raw: dict) -> list:
    components = [build_field(form.default_engine_field(), settings, raw)]
    for engine in ENGINES:
        with gr.Group():
            with gr.Row(equal_height=True):
                gr.Markdown(f"**{engine}**", min_height=0)
                for spec in form.engine_fields(engine):
                    components.append(build_field(spec, settings, raw))
                test = gr.Button("Test", size="sm", scale=0, min_width=70, elem_id=f"set-test-{engine}")
            verdict = gr.Markdown(elem_id=f"set-verdict-{engine}")
        test.click(lambda e=engine: test_engine(e), outputs=verdict)
    return components


def build_tab(settings: Settings, shared: dict | None = None) -> None:
    raw = form.file_values(settings.path)
    fields = form.all_fields()
    gr.Markdown(f"Settings are saved to `{settings.path}`. Keys are never shown: type a new key to replace the "
                "saved one; an empty key field keeps it.")
    with gr.Accordion("Language models", open=True):
        components = build_llm_section(settings, raw)
    with gr.Accordion("Search engines", open=True):
        components += build_engine_section(settings, raw)
    with gr.Accordion("Research defaults, privacy and models", open=True):
        with gr.Row():
            components += [build_field(spec, settings, raw) for spec in form.general_fields()]
    secret_names = [f.name for f in fields if f.secret]
    with gr.Row():
        clear_keys = gr.Dropdown(secret_names, multiselect=True, label="Remove saved keys", scale=3,
                                 elem_id="set-clear-keys")
        save = gr.Button("Save settings", variant="primary", scale=1, elem_id="set-save")
    saved = gr.Markdown(elem_id="set-saved")
    with gr.Accordion("Status of every LLM role and engine", open=False):
        check = gr.Button("Test all", elem_id="set-test-all")
        table = gr.Dataframe(headers=["what", "verdict", "details"], interactive=False, wrap=True)
    with gr.Accordion("Engine health", open=False):
        with gr.Row():
            refresh = gr.Button("Refresh", size="sm", elem_id="set-health-refresh")
            resume = gr.Button("Lift suspensions", size="sm", elem_id="set-health-resume")
        health = gr.Dataframe(headers=["engine", "configured", "state", "details"], interactive=False,
                              wrap=True, elem_id="set-health", column_widths=["12%", "12%", "14%", "62%"])
    with gr.Accordion("All active settings (keys masked)", open=False):
        active = gr.Markdown(settings_markdown(settings))

    @user_errors
    def save_settings(clear, *values):
        current = current_settings()
        updates = form.changes(fields, list(values), current, form.file_values(current.path), clear)
        outcome = form.save_changes(current, updates)
        message = (f"Saved {len(outcome.changed)} setting(s): " + ", ".join(outcome.changed)
                   if outcome.changed else "Nothing changed.")
        gr.Info(message)
        return [message, [], settings_markdown(outcome.settings)] + form_updates(outcome.settings, fields)

    save.click(save_settings, inputs=[clear_keys, *components], outputs=[saved, clear_keys, active, *components])
    if shared is not None:  # a reloaded page shows the settings in force, not those the UI started with
        shared.setdefault("on_load", []).append(dict(fn=lambda: shown_now(fields), outputs=[active, *components]))
    check.click(test_all, outputs=table)
    refresh.click(refresh_health, outputs=health)
    resume.click(resume_engines, outputs=health)
