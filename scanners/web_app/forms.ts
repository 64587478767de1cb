import type * as cheerio from 'cheerio';
import { loadHtml } from '../_lib/html-document.ts';

/** A form as the active checks submit it: where, how, and the fields with their defaults. */
export interface PageForm {
  /** Absolute URL the form submits to (the page itself when `action` is empty). */
  action: string;
  method: 'GET' | 'POST';
  /** `application/x-www-form-urlencoded` fields (file uploads and buttons are left out). */
  fields: Array<{ name: string; value: string; injectable: boolean }>;
}

/** Field types whose value a user does not type: sent with their default (checked boxes only), never injected. */
const FIXED_TYPES = new Set(['submit', 'button', 'image', 'reset', 'file', 'checkbox', 'radio']);

/** The forms of an HTML page (at most 20: a page with more is a form generator, not more surface). */
export function formsOf(html: string | cheerio.CheerioAPI, pageUrl: string): PageForm[] {
  const $ = typeof html === 'string' ? loadHtml(html) : html;
  const forms: PageForm[] = [];
  $('form').slice(0, 20).each((_i, form) => {
    let action: string;
    try {
      action = new URL($(form).attr('action')?.trim() || pageUrl, pageUrl).href;
    } catch {
      return;
    }
    const method = ($(form).attr('method') ?? 'get').trim().toUpperCase() === 'POST' ? 'POST' : 'GET';
    const fields: PageForm['fields'] = [];
    $(form)
      .find('input[name], textarea[name], select[name]')
      .each((_j, el) => {
        const name = $(el).attr('name')!;
        const type = ($(el).attr('type') ?? 'text').toLowerCase();
        if (FIXED_TYPES.has(type) && type !== 'checkbox' && type !== 'radio') return;
        const value = el.tagName === 'select' ? ($(el).find('option[selected]').attr('value') ?? $(el).find('option').first().attr('value') ?? '') : el.tagName === 'textarea' ? $(el).text() : ($(el).attr('value') ?? '');
        if ((type === 'checkbox' || type === 'radio') && $(el).attr('checked') === undefined) return;
        if (!fields.some((f) => f.name === name)) fields.push({ name, value, injectable: !FIXED_TYPES.has(type) });
      });
    forms.push({ action, method, fields });
  });
  return forms;
}
