"""The Web Search tab's "Report options": tone, format, report language, length budget, and the report prompt
(the aggregation prompt) in an editor, with named presets saved next to config.txt (save, load, delete) and
a reset to the built-in prompt. A preset missing {question} or {sources} is refused with a message saying
which; the form's values become ResearchParams in web_search_params.
"""
from __future__ import annotations

import gradio as gr

from App_Function_Libraries import options
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, toast_text

FORMAT_CHOICES = options.labelled("report_format")
CITATION_STYLE_CHOICES = options.labelled("citation_style")
PROMPT_LABEL = ("Report prompt: {question} and {sources} are required (the sources are inserted there, as data); "
                "{tone}, {format}, {length} and {language} may be used")


def preset_choices(settings=None) -> list[str]:
    from App_Function_Libraries import quarry
    return quarry.presets.names(settings or current_settings())


def default_prompt() -> str:
    from App_Function_Libraries import quarry
    return quarry.presets.default_prompt()


def _refused(action: str, exc: Exception) -> str:
    gr.Warning(toast_text(f"{action}: {one_line(exc, 200)}"))
    return f"**{action}:** {one_line(exc, 300)}"


def load_preset(name: str):
    """prompt text, status for the preset chosen in the list."""
    from App_Function_Libraries import quarry
    try:
        return quarry.presets.load(name, current_settings()), f"Loaded preset **{one_line(name, 60)}**."
    except quarry.QuarryError as exc:
        return gr.skip(), _refused("Not loaded", exc)


def save_preset(name: str, text: str):
    """preset list (the saved one chosen), status. A broken prompt is refused and nothing is written."""
    from App_Function_Libraries import quarry
    try:
        stem = quarry.presets.save(name, text, current_settings())
    except quarry.QuarryError as exc:
        return gr.skip(), _refused("Not saved", exc)
    return gr.Dropdown(choices=preset_choices(), value=stem), f"Saved preset **{stem}**."


def reset_prompt():
    """The built-in prompt back in the editor, "default" chosen."""
    return default_prompt(), gr.Dropdown(value="default"), "The built-in report prompt is back."


def delete_preset(name: str):
    from App_Function_Libraries import quarry
    try:
        stem = quarry.presets.delete(name, current_settings())
    except quarry.QuarryError as exc:
        return gr.skip(), gr.skip(), _refused("Not deleted", exc)
    return (default_prompt(), gr.Dropdown(choices=preset_choices(), value="default"),
            f"Deleted preset **{stem}**; the built-in prompt is back.")


def values_from_params(params: dict) -> list:
    """tone, format, language, length, prompt, preset, citation style of a saved run, for the controls
    (History reopens)."""
    names = preset_choices()
    preset = params.get("preset") or "default"
    return [params.get("tone") or "neutral", params.get("report_format") or "full",
            params.get("report_language") or "", int(params.get("length_words") or 600),
            params.get("aggregation_prompt") or default_prompt(),
            gr.Dropdown(choices=names, value=preset if preset in names else "default"),
            params.get("citation_style") if params.get("citation_style") in options.CITATION_STYLES
            else current_settings().research.citation_style]


def build(settings) -> dict:
    """The accordion; returns its inputs by form name, the options' names (tone, report_format,
    report_language, length_words, aggregation_prompt, preset, citation_style)."""
    research = settings.research
    tones = list(dict.fromkeys([settings.search.search_result_analysis_tone, *options.REPORT_TONES]))
    with gr.Accordion("Report options", open=False, elem_id="ws-report-options"):
        with gr.Row():
            tone = gr.Dropdown(tones, value=tones[0], allow_custom_value=True, label=options.label("tone"),
                               elem_id="ws-tone")
            fmt = gr.Dropdown(FORMAT_CHOICES, value=research.report_format, label=options.label("report_format"),
                              elem_id="ws-format")
            lang = gr.Textbox(research.report_language, label=options.label("report_language"),
                              placeholder="e.g. en, de, pt-BR", max_lines=1, elem_id="ws-lang")
            length = gr.Slider(50, 3000, value=min(max(research.length_words, 50), 3000), step=50,
                               label=options.label("length_words"), elem_id="ws-length")
            style = gr.Dropdown(CITATION_STYLE_CHOICES, value=research.citation_style,
                                label=options.label("citation_style"), elem_id="ws-citation-style")
        with gr.Row(equal_height=True):
            preset = gr.Dropdown(preset_choices(settings), value="default", label="Preset", scale=2,
                                 elem_id="ws-preset")
            load = gr.Button("Load", size="sm", scale=1, elem_id="ws-preset-load")
            name = gr.Textbox(label="Save as", placeholder="preset name", max_lines=1, scale=2,
                              elem_id="ws-preset-name")
            save = gr.Button("Save preset", size="sm", scale=1, elem_id="ws-preset-save")
            reset = gr.Button("Reset to default", size="sm", scale=1, elem_id="ws-preset-reset")
            delete = gr.Button("Delete preset", size="sm", variant="stop", scale=1, elem_id="ws-preset-delete")
        prompt = gr.Textbox(default_prompt(), lines=10, max_lines=30, label=PROMPT_LABEL, elem_id="ws-prompt")
        status = gr.Markdown(elem_id="ws-preset-status")
    load.click(load_preset, inputs=preset, outputs=[prompt, status])
    save.click(save_preset, inputs=[name, prompt], outputs=[preset, status])
    reset.click(reset_prompt, outputs=[prompt, preset, status])
    delete.click(delete_preset, inputs=preset, outputs=[prompt, preset, status])
    return {"tone": tone, "report_format": fmt, "report_language": lang, "length_words": length,
            "aggregation_prompt": prompt, "preset": preset, "citation_style": style}
