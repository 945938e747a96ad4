import { AppError } from '../../common/app-error';
import { negotiateImageFormat } from './image-format';

describe('negotiateImageFormat', () => {
  it.each([
    // [extension, accept, expected]
    [undefined, undefined, 'png'],
    [undefined, '', 'png'],
    [undefined, '*/*', 'png'],
    [undefined, 'image/*', 'png'],
    [undefined, 'image/webp', 'webp'],
    [undefined, 'image/jpeg', 'jpeg'],
    [undefined, 'image/jpg', 'jpeg'],
    [undefined, 'image/png', 'png'],
    [undefined, 'IMAGE/WEBP', 'webp'],
    [undefined, 'text/html', 'png'],
    [undefined, 'text/html, application/xhtml+xml', 'png'],
    [undefined, 'image/jpeg;q=0.9, image/webp;q=0.5', 'jpeg'],
    [undefined, 'image/png;q=0.1, image/jpeg;q=0.8', 'jpeg'],
    [undefined, 'image/webp;q=0, image/*;q=0.5', 'png'],
    [undefined, 'image/png;q=0, image/*', 'webp'],
    [undefined, 'image/png;q=0, image/webp;q=0, */*', 'jpeg'],
    [undefined, 'image/*;q=0.2, image/jpeg', 'jpeg'],
    [undefined, 'image/*, image/webp', 'webp'],
    [undefined, 'image/jpeg;q=0.5, */*;q=0.9', 'png'],
    [undefined, 'image/jpeg, image/webp', 'webp'],
    [undefined, 'image/png;q=0, image/jpeg;q=0, image/webp;q=0', 'png'],
    [undefined, 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', 'webp'],
    [undefined, 'image/webp ; q = 0.4 , image/jpeg;q=0.3', 'webp'],
    [undefined, 'garbage, ;;, /, image/jpeg', 'jpeg'],
    ['.png', 'image/webp', 'png'],
    ['.jpeg', 'image/webp', 'jpeg'],
    ['.jpg', undefined, 'jpeg'],
    ['webp', 'image/png', 'webp'],
    ['.JPG', undefined, 'jpeg'],
  ])('ext %p, Accept %p → %p', (ext, accept, expected) => {
    expect(negotiateImageFormat(ext, accept).format).toBe(expected);
  });

  it('returns the content type with the format', () => {
    expect(negotiateImageFormat('.jpg')).toEqual({ format: 'jpeg', contentType: 'image/jpeg' });
    expect(negotiateImageFormat(undefined, 'image/webp')).toEqual({ format: 'webp', contentType: 'image/webp' });
    expect(negotiateImageFormat()).toEqual({ format: 'png', contentType: 'image/png' });
  });

  it('refuses an unknown extension with a 400', () => {
    expect(() => negotiateImageFormat('.gif')).toThrow(AppError);
    expect(() => negotiateImageFormat('.gif')).toThrow(/\.png, \.jpeg, \.jpg or \.webp/);
  });
});
